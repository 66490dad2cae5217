// dsm_reproduce: the figures of seed 003 §V from partsim's DeepSpatialMatrix model, as Markdown.
// scripts/reproduce_dsm.sh writes docs/reproductions/dsm.md with it.
//   dsm_reproduce report CONFIG_DIR              all figures (Markdown on stdout)
//   dsm_reproduce layers CONFIG WORKLOAD BATCH OPTS [inference]   one per-layer table
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/planners/dsm/search.hpp"
#include "topology/system_parser.hpp"
#include "workloads/zoo.hpp"

using namespace partsim;

namespace {

// Figures the side-by-side table compares with the paper (filled by the figure functions).
std::map<std::string, double> g_metric;
// The same figures on the configs' own platforms (with their link latencies), for the latency table.
std::map<std::string, double> g_metric_latency;

// Where the figure functions write (stdout, or a scratch file for the latency pass).
std::FILE* g_out = stdout;

__attribute__((format(printf, 1, 2))) void emit(const char* format, ...) {
  va_list args;
  va_start(args, format);
  std::vfprintf(g_out, format, args);
  va_end(args);
}

struct Run {
  dsm::GroupChain net;
  dsm::DsmResult result;
};

Run run(const dsm::DsmSystem& sys, const std::string& workload, long long batch, const std::string& opts,
        plan::Mode mode = plan::Mode::training, bool preload = true) {
  const workloads::Graph g = workloads::build_zoo(workload, batch);
  Run r;
  r.net = dsm::build_group_chain(g);
  dsm::DsmOptions o = dsm::parse_dsm_options({opts});
  o.mode = mode;
  o.preload = preload;
  r.result = dsm::search_network(r.net, sys, o);
  return r;
}

std::string factors_text(const dsm::Split5& f) {
  std::string s;
  auto add = [&](const char* n, long long v) {
    if (v > 1) s += std::string(s.empty() ? "" : " ") + n + "=" + std::to_string(v);
  };
  add("in", f.in);
  add("out", f.out);
  add("ij", f.ij);
  add("kij", f.kij);
  add("mb", f.mb);
  return s.empty() ? "-" : s;
}

const char* split_name(dsm::ChipSplit s) {
  switch (s) {
    case dsm::ChipSplit::data: return "Data";
    case dsm::ChipSplit::model: return "Model";
    case dsm::ChipSplit::data_x_model_y: return "DataXModelY";
    case dsm::ChipSplit::model_x_data_y: return "ModelXDataY";
  }
  return "?";
}

void print_layers(const dsm::DsmSystem& sys, const std::string& w, long long batch, const std::string& opts,
                  plan::Mode mode) {
  const Run r = run(sys, w, batch, opts, mode);
  emit("| layer | ChipD | CoreD (FWD) | DySM | reuse | FWD ms | BWD ms | UPD ms | util |\n");
  emit("|---|---|---|---|---|---|---|---|---|\n");
  for (const auto& lc : r.result.layers) {
    double t[3] = {0, 0, 0};
    for (const auto& pc : lc.passes) t[static_cast<int>(pc.pass)] = pc.total_s * 1e3;
    const double util = lc.total_s > 0 ? lc.useful_macs / (sys.peak_macs_per_s() * lc.total_s) : 0;
    emit("| %s | %s | %s | %d | %s | %.4f | %.4f | %.4f | %.2f |\n", lc.name.c_str(), dsm::to_string(lc.split),
                lc.passes.empty() ? "-" : factors_text(lc.passes[0].config.core).c_str(), lc.dysm_factor,
                lc.reuse_in ? "Y" : "N", t[0], t[1], t[2], util);
  }
  emit("\niteration %.4f ms, utilization %.3f\n", r.result.iteration_s * 1e3, r.result.utilization);
}

// ---- Fig. 11 (a-c): training ----------------------------------------------------------------------

struct Bar {
  std::string label;
  std::string opts;
  bool symmetric;
};

void fig11_training(const dsm::DsmSystem& sym, const dsm::DsmSystem& asym) {
  emit("## Fig. 11 (a-c): training speedup per optimization\n\n");
  emit(
      "Speedup = training throughput (samples/s) normalised to the first bar (DSM, symmetric torus, no "
      "optimization) at N_mb = 256, as in the paper. Bars are cumulative: DSM (torus_8pf.yaml, symmetric "
      "80/80 GB/s, `--opt none`); +Hybrid (torus_8pf_asym.yaml, 120/40 GB/s, `--opt hybrid`); +MemOpt "
      "(`hybrid,memreuse`); +DySM (`hybrid,memreuse,dysm`, VGG16, ResNet50) or +TP (`hybrid,memreuse,tpipe`, "
      "GNMT). `util` is useful MACs / (peak x time).\n\n");
  const std::vector<long long> batches = {256, 512, 1024, 2048};
  // §V-A1's "boost speedup by 1.36x / 2.6x / 32x": the best configuration (all optimizations, the
  // best N_mb) over DSM at N_mb 256, the figure's normalisation; the paper's own VGG16 numbers give
  // it: best utilization 0.79 / DSM utilization at 256 0.57 = 1.39 (docs/model.md, "Reading the
  // paper's gains").
  struct Best {
    double util = 0;
    double throughput = 0;
    long long at = 0;
  };
  std::map<std::string, Best> best;
  for (const std::string w : {"vgg16", "resnet50", "gnmt"}) {
    const bool lstm = w == "gnmt";
    const std::vector<Bar> bars = {{"DSM", "none", true},
                                   {"+Hybrid", "hybrid", false},
                                   {"+MemOpt", "hybrid,memreuse", false},
                                   {lstm ? "+TP" : "+DySM", lstm ? "hybrid,memreuse,tpipe" : "hybrid,memreuse,dysm", false}};
    emit("### %s\n\n| N_mb |", w.c_str());
    for (const auto& b : bars) emit(" %s speedup | util |", b.label.c_str());
    emit(" all opts / DSM |\n|---|");
    for (std::size_t i = 0; i < bars.size(); ++i) emit("---|---|");
    emit("---|\n");
    double base_throughput = 0;
    for (long long mb : batches) {
      emit("| %lld |", mb);
      double first = 0, last = 0;
      for (std::size_t i = 0; i < bars.size(); ++i) {
        const Run r = run(bars[i].symmetric ? sym : asym, w, mb, bars[i].opts);
        const double thr = static_cast<double>(mb) / r.result.iteration_s;
        if (mb == batches.front() && i == 0) base_throughput = thr;
        if (i == 0) first = thr;
        last = thr;
        emit(" %.2f | %.3f |", thr / base_throughput, r.result.utilization);
        g_metric[w + "/" + std::to_string(mb) + "/" + std::to_string(i) + "/thr"] = thr;
        g_metric[w + "/" + std::to_string(mb) + "/" + std::to_string(i) + "/util"] = r.result.utilization;
        if (i + 1 == bars.size() && thr > best[w].throughput) {
          best[w].util = r.result.utilization;
          best[w].throughput = thr;
          best[w].at = mb;
        }
      }
      emit(" %.2fx |\n", last / first);
    }
    emit("\n");
  }
  emit("### Best case (all optimizations, any N_mb)\n\n"
       "Gain = throughput of the best configuration (all optimizations, best N_mb) over DSM at N_mb 256, "
       "the paper's \"boost speedup by 1.36x / 2.6x / 32x\" (its VGG16 utilizations give 0.79 / 0.57 = "
       "1.39).\n\n| workload | best utilization | at N_mb | paper | gain over DSM at N_mb 256 | paper |\n"
       "|---|---|---|---|---|---|\n");
  const std::map<std::string, std::pair<double, double>> paper = {
      {"vgg16", {0.79, 1.36}}, {"resnet50", {0.41, 2.6}}, {"gnmt", {0.36, 32}}};
  for (const std::string w : {"vgg16", "resnet50", "gnmt"}) {
    const double gain = best[w].throughput / g_metric.at(w + "/256/0/thr");
    emit("| %s | %.2f | %lld | %.2f | %.2fx | %.2fx |\n", w.c_str(), best[w].util, best[w].at,
                paper.at(w).first, gain, paper.at(w).second);
    g_metric[w + "/best_util"] = best[w].util;
    g_metric[w + "/gain"] = gain;
  }
  emit("\n");
}

// ---- Fig. 11 (d-f): inference ----------------------------------------------------------------------

void fig11_inference(const dsm::DsmSystem& asym) {
  const dsm::DsmSystem chip = dsm::single_chip(asym);
  emit("## Fig. 11 (d-f), §V-A2: inference on one chip (128 TFLOP/s)\n\n");
  emit("Latency per batch (forward only). DSM: `--opt none`; +FeatOpt: activations held on chip "
              "(memreuse without weight preloading); +WeightPreload: memreuse with preloading.\n\n");
  emit("| workload | batch | DSM ms | +FeatOpt ms | +WeightPreload ms | total gain | paper gain (batch 1) |\n"
              "|---|---|---|---|---|---|---|\n");
  const std::map<std::string, std::string> paper = {{"vgg16", "1.16x (16%)"}, {"resnet50", "3.6x"}, {"gnmt", "44x"}};
  for (const std::string w : {"vgg16", "resnet50", "gnmt"})
    for (long long b : {1, 2, 4, 8, 16}) {
      const double t0 = run(chip, w, b, "none", plan::Mode::inference).result.iteration_s;
      const double t1 = run(chip, w, b, "memreuse", plan::Mode::inference, false).result.iteration_s;
      const double t2 = run(chip, w, b, "memreuse", plan::Mode::inference, true).result.iteration_s;
      emit("| %s | %lld | %.3f | %.3f | %.3f | %.2fx | %s |\n", w.c_str(), b, t0 * 1e3, t1 * 1e3, t2 * 1e3,
                  t0 / t2, b == 1 ? paper.at(w).c_str() : "");
      if (b == 1) {
        g_metric[w + "/inf_gain"] = t0 / t2;
        g_metric[w + "/inf_feat_gain"] = t0 / t1;
      }
    }
  emit("\n");
}

// ---- Fig. 12 / 13: VGG16 at batch 512 --------------------------------------------------------------

// Fig. 12 beside the paper's, layer by layer (numbers from `simplan ... --explain LAYER` on the same
// platform and the held-tensor rule of docs/model.md, "Optimizations").
constexpr const char* kFig12Differences =
    "Differences from the paper's Fig. 12 (it prints 9 of the 16 rows, and conv4_3's CoreD as \"ij=2 mb=2\", "
    "a product of 4, not 32):\n\n"
    "- **ChipD** is the paper's for the 13 convolutions (Data), fc7 and fc8 (DataXModelY). fc6: we choose "
    "DataXModelY, the paper Model. As Model, fc6 rotates its features through all 64 chips in every pass "
    "(`--explain fc6`: best FWD 311, BWD 367, UPD 311 us, 0.99 ms) against 0.83 ms for DataXModelY including "
    "its 0.16 ms gradient reduction along X and the 0.15 ms relayout from conv5_3. The paper reports costs of "
    "the same kinds for its Model fc6 (22 % relayout, 60-80 % visible rotation); the choice turns on a 16 % "
    "difference its figures do not let us check.\n"
    "- **DySM factor**: ours 2 for conv1_1-conv3_1 and 1 after, the paper's 4 throughout. We take the "
    "cheapest factor, and the smallest one that lets a layer hold its input is usually it (a larger one "
    "refetches kernels, §III-C). conv1_2 holding conv1_1's output holds (3,211,264 + 802,816 pooled) "
    "elements x 8 samples per chip x 2 B / 32 cores / f = 1,003,520 B at f = 2, within 1 MiB less the "
    "8 KiB tile reserve (1,040,384 B). Read as decimal (1 MB = 10^6 B, 991,808 B usable) it needs f = 4, "
    "the paper's factor for the first layers. For conv4_1 onwards f = 1 already fits; why the paper keeps 4 "
    "there it does not say.\n"
    "- **Mem-Opt**: the paper holds everything but conv1_2's input; we hold conv1_2's (it fits at f = 2 as "
    "above, and would at f = 4) but not conv4_1-conv5_3's. Those layers' FWD is 95-97 % MAC busy with no "
    "visible transfer (Fig. 13 below), so holding their input saves nothing, while a CoreD matching the "
    "producer's layout splits the reduction (in) and pays PartialSumAcc; since ties go to memory reuse, "
    "not holding is strictly cheaper in our model.\n"
    "- **CoreD**: conv1_x, ours ij=8 mb=4 against ij=32: the same work per core (1568 output positions x "
    "S_mb samples either way) and no halo exchange between cores in either model, so equal up to padding. "
    "conv3_1 (paper in=4 out=4 ij=2) and conv5_1 (in=8 out=4): the paper splits the reduction (in) over "
    "cores, which our model charges as PartialSumAcc on the ring every iteration; we split positions, "
    "samples and out instead (conv5_1 out=16 mb=2). fc6 and fc8 match (mb=32); fc7 ours mb=32, the paper's "
    "out=4 mb=8.\n";

void fig12(const dsm::DsmSystem& asym) {
  emit("## Fig. 12: VGG16 per-layer configuration, N_mb = 512 (asymmetric torus, all optimizations)\n\n");
  emit("CoreD as split factors (cores along each dimension, product 32), FWD pass. Paper column: "
              "Fig. 12 where it lists the layer.\n\n");
  const std::map<std::string, std::string> paper = {
      {"conv1_1", "Data; ij=32; Y; 4"}, {"conv1_2", "Data; ij=32; N; 4"},
      {"conv2_2", "Data; out=2 ij=8 mb=2; Y; 4"}, {"conv3_1", "Data; in=4 out=4 ij=2; Y; 4"},
      {"conv4_3", "Data; ij=2 mb=2 (as printed); Y; 4"}, {"conv5_1", "Data; in=8 out=4; Y; 4"},
      {"fc6", "Model; mb=32; Y; 1"}, {"fc7", "DataXModelY; out=4 mb=8; Y; 1"}, {"fc8", "DataXModelY; mb=32; Y; 1"}};
  const Run r = run(asym, "vgg16", 512, "all");
  emit("| layer | ChipD | CoreD FWD | CoreD BWD | CoreD UPD | Mem-Opt | DySM | paper (ChipD; CoreD; Mem-Opt; DySM) |\n"
              "|---|---|---|---|---|---|---|---|\n");
  for (const auto& lc : r.result.layers) {
    std::string cd[3] = {"-", "-", "-"};
    bool reuse = false;
    for (const auto& pc : lc.passes) {
      cd[static_cast<int>(pc.pass)] = factors_text(pc.config.core);
      reuse = reuse || pc.memory_reuse;
    }
    auto it = paper.find(lc.name);
    emit("| %s | %s | %s | %s | %s | %s | %d | %s |\n", lc.name.c_str(), split_name(lc.split), cd[0].c_str(),
                cd[1].c_str(), cd[2].c_str(), reuse ? "Y" : "N", lc.dysm_factor,
                it == paper.end() ? "" : it->second.c_str());
  }
  emit("\n%s\n", kFig12Differences);
  emit("\n## Fig. 13: VGG16 per-layer share of time (N_mb = 512, same plan)\n\n");
  emit("Percent of each layer's pass time: MAC busy / array under-use / overlapped transfer not hidden / "
              "non-overlapped transfer / auxiliary.\n\n| layer | FWD | BWD | UPD |\n|---|---|---|---|\n");
  for (const auto& lc : r.result.layers) {
    std::string cells[3] = {"-", "-", "-"};
    for (const auto& pc : lc.passes) {
      const auto bd = pc.breakdown();
      char buf[128];
      const double t = pc.total_s > 0 ? pc.total_s : 1;
      std::snprintf(buf, sizeof buf, "%.0f / %.0f / %.0f / %.0f / %.0f", 100 * bd.at("mac_busy_s") / t,
                    100 * bd.at("array_underuse_s") / t, 100 * bd.at("overlap_not_hidden_s") / t,
                    100 * bd.at("non_overlapped_s") / t, 100 * bd.at("auxiliary_s") / t);
      cells[static_cast<int>(pc.pass)] = buf;
    }
    emit("| %s | %s | %s | %s |\n", lc.name.c_str(), cells[0].c_str(), cells[1].c_str(), cells[2].c_str());
  }
  emit("\n");
}

// ---- Fig. 14: scaling ----------------------------------------------------------------------------

void fig14(const dsm::DsmSystem& asym) {
  emit("## Fig. 14: scaling with the number of chips (X = 4, Y = 4..64), N_mb = 1024\n\n");
  emit("Speedup of training throughput over 16 chips (2 PFLOP/s) without optimizations; asymmetric "
              "120/40 GB/s links.\n\n| chips | PFLOP/s |");
  const std::vector<std::string> ws = {"vgg16", "resnet50", "gnmt"};
  for (const auto& w : ws) emit(" %s DSM | %s all opts |", w.c_str(), w.c_str());
  emit("\n|---|---|");
  for (std::size_t i = 0; i < ws.size(); ++i) emit("---|---|");
  emit("\n");
  std::map<std::string, double> base;
  for (int rows : {4, 8, 16, 32, 64}) {
    dsm::DsmSystem s = asym;
    s.N = rows;
    emit("| %d | %.1f |", s.chips(), 2.0 * s.peak_macs_per_s() / 1e15);
    for (const auto& w : ws) {
      for (const char* o : {"none", "all"}) {
        const double t = run(s, w, 1024, o).result.iteration_s;
        if (rows == 4 && std::string(o) == "none") base[w] = t;
        g_metric[w + "/scale/" + std::to_string(s.chips()) + "/" + o] = t;
        emit(" %.2f |", base[w] / t);
      }
    }
    emit("\n");
  }
  emit("\n");
}

// ---- Fig. 15: scratchpad -------------------------------------------------------------------------

void fig15(const dsm::DsmSystem& asym) {
  emit("## Fig. 15: training utilization vs scratchpad capacity, N_mb = 512\n\n");
  emit("| workload | scratchpad | no mem. opt (`hybrid`) | mem. opt (`hybrid,memreuse`) | mem. opt + DySM/TP (`all`) |\n"
              "|---|---|---|---|---|\n");
  for (const std::string w : {"vgg16", "resnet50", "gnmt"})
    for (double mib : {0.5, 1.0, 2.0, 4.0}) {
      dsm::DsmSystem s = asym;
      s.chip.core.scratchpad_bytes = mib * 1024 * 1024;
      emit("| %s | %.1f MiB |", w.c_str(), mib);
      for (const char* o : {"hybrid", "hybrid,memreuse", "all"}) {
        const double u = run(s, w, 512, o).result.utilization;
        g_metric[w + "/spad/" + std::to_string(static_cast<int>(mib * 2)) + "/" + o] = u;
        emit(" %.3f |", u);
      }
      emit("\n");
    }
  emit("\n");
}

// ---- side by side ---------------------------------------------------------------------------------

// The metrics the rows read: g_metric (the paper's model) or g_metric_latency.
const std::map<std::string, double>* g_view = &g_metric;

double m(const std::string& key) { return g_view->count(key) ? g_view->at(key) : 0.0; }
double ratio(const std::string& a, const std::string& b) { return m(b) > 0 ? m(a) / m(b) : 0.0; }

struct Row {
  std::string what;
  double paper;
  double ours;
  std::string why;  // shown when the gap is over 15 %
};

/// Share of a zoo workload's primary (matrix-product) FLOPs that its LSTM layers carry (per sample, so
/// the same at every minibatch).
double lstm_share(const std::string& workload) {
  const workloads::Graph g = workloads::build_zoo(workload, 1);
  double lstm = 0, all = 0;
  for (const auto& layer : g.layers()) {
    all += layer.q.primary_flops.total();
    if (layer.kind == workloads::LayerKind::lstm) lstm += layer.q.primary_flops.total();
  }
  return all > 0 ? lstm / all : 0.0;
}

std::string gnmt_utilization_why(double best_util) {
  const double share = lstm_share("gnmt");
  char buf[1400];
  std::snprintf(buf, sizeof buf,
                "What counts as useful work. The paper describes GNMT by its LSTM layers (\"most layers contain "
                "1024 neurons ... ~16M FLOPs/layer\") and gives no vocabulary size; our utilization counts every "
                "product, of which the LSTM layers carry %.0f %% (the 1024+1024 -> 32k classifier over all 128 "
                "steps carries 27 %%, attention and embeddings the rest). Counting the LSTM layers alone as "
                "useful, the same plan's utilization is %.3f x %.3f = %.3f, the paper's 0.36. Other readings: a "
                "model without the classifier, re-planned, reaches 0.44 (+22 %%); the attention is too small a "
                "term (dec_attention takes 0.97 of 91.5 ms at N_mb 2048; ten times slower it would leave 0.46). "
                "Where the time goes: encoder LSTMs at 0.77 (weights held, data parallel), decoder layers 2-8 at "
                "0.30 (they read the attention context every step: 42 %% of the iteration is overlapped "
                "transfer not hidden).",
                share * 100, best_util, share, best_util * share);
  return buf;
}

std::vector<Row> comparison_rows() {
  return {
      {"VGG16 DSM utilization, N_mb 256 (§V-A1)", 0.57, m("vgg16/256/0/util"), ""},
      {"VGG16 best utilization", 0.79, m("vgg16/best_util"), ""},
      {"ResNet50 best utilization", 0.41, m("resnet50/best_util"),
       "Training writes every activation and re-reads it in UPD in our model (§III-B: reuse saves a read, "
       "not the write); ResNet50's 1x1 convolutions and their batch-norm/add/relu stay bound by those "
       "writes and by the SFPs (8 x 16 lanes per core, our choice in torus_8pf.yaml). See Fig. 13-style "
       "terms with `simplan --explain`."},
      {"GNMT best utilization", 0.36, m("gnmt/best_util"), gnmt_utilization_why(m("gnmt/best_util"))},
      {"VGG16 gain of the optimizations (best over DSM at N_mb 256)", 1.36, m("vgg16/gain"), ""},
      {"ResNet50 gain of the optimizations (best over DSM at N_mb 256)", 2.6, m("resnet50/gain"), ""},
      {"GNMT gain of the optimizations (best over DSM at N_mb 256)", 32, m("gnmt/gain"),
       "The gap is the baseline's: the paper's figures imply a DSM utilization of 0.36 / 32 = 0.011 at "
       "N_mb 256, ours is 0.048 (its LSTMs model-parallel, every timestep's 63 rotation steps timed by "
       "bandwidth alone). With the configs' 500 ns per hop those steps dominate (0.326 s instead of "
       "0.120 s per iteration, next section) and the gain is 28.5x (-11 %): the paper's GNMT baseline "
       "behaves as if each rotation step had a fixed cost of that order, which §II-D does not state."},
      {"GNMT hybrid speedup, N_mb 256 (paper 2-3x)", 2.5, ratio("gnmt/256/1/thr", "gnmt/256/0/thr"),
       "Same cause as the GNMT gain: hybrid (DataXModelY) cuts each timestep's rotation from 63 steps to "
       "15 along Y, which saves most where steps cost latency. Bandwidth alone gives 1.42x; with 500 ns "
       "per hop 2.75x (+10 %)."},
      {"ResNet50 hybrid speedup, N_mb 256 (paper 10-18 %)", 1.14, ratio("resnet50/256/1/thr", "resnet50/256/0/thr"),
       ""},
      {"ResNet50 hybrid speedup, N_mb 512 (paper 10-18 %)", 1.14, ratio("resnet50/512/1/thr", "resnet50/512/0/thr"),
       ""},
      {"VGG16 hybrid speedup, N_mb 512 (paper 3-12 %)", 1.075, ratio("vgg16/512/1/thr", "vgg16/512/0/thr"), ""},
      {"ResNet50 Mem-Opt over hybrid, N_mb 512", 1.55, ratio("resnet50/512/2/thr", "resnet50/512/1/thr"), ""},
      {"GNMT Mem-Opt over hybrid, N_mb 256 (paper 3-4x)", 3.5, ratio("gnmt/256/2/thr", "gnmt/256/1/thr"),
       "15 % above the top of the paper's range. The hybrid plan (DataXModelY) is bound by rotating each "
       "step's features over the 40 GB/s Y links (2.48 of enc_lstm3's 3.60 ms); with weight reuse the "
       "LSTMs switch to data parallelism with their weights held and move nothing between chips per "
       "timestep. The paper does not break its Mem-Opt bar down."},
      {"ResNet50 DySM over Mem-Opt, N_mb 1024", 1.18, ratio("resnet50/1024/3/thr", "resnet50/1024/2/thr"), ""},
      {"GNMT timestep pipelining, N_mb 256", 1.30, ratio("gnmt/256/3/thr", "gnmt/256/2/thr"),
       "Pipelining recovers per-step costs of the Mem-Opt plan: with 500 ns per hop that plan takes "
       "0.0266 s and pipelining 0.0206 s (1.29x, -1 %); timed by bandwidth alone the Mem-Opt plan takes "
       "0.0184 s and leaves little to recover (0.0177 s)."},
      {"GNMT timestep pipelining, N_mb 2048", 1.17, ratio("gnmt/2048/3/thr", "gnmt/2048/2/thr"),
       "At large minibatches every LSTM step already fills the 64 chips in our model, and a pipelined "
       "stage on M x rows chips pays the (N_ts + G - 1) fill and the per-step hand-over on the slow Y "
       "links, so the search keeps the sequential plan (gain 1.0)."},
      {"Inference VGG16 gain at batch 1", 1.16, m("vgg16/inf_gain"), ""},
      {"Inference ResNet50 gain at batch 1", 3.6, m("resnet50/inf_gain"),
       "ResNet50's 25.6 M weights are 51 MB, more than the chip's 32 MiB (33.5 MB) of scratchpad, so even "
       "perfect, unreplicated preloading leaves 17.6 MB to stream per inference (0.086 ms at 204.8 GB/s), "
       "and preloaded weights are replicated as CoreD needs. The paper's 3.6x would need 0.152 ms from our "
       "0.546 ms baseline. The PE shape (ours 8 x 8 PEs x 16 SIMD lanes, the paper gives no P) matters "
       "less here: as a 32 x 32 array of 1-lane PEs the gain is 2.12x."},
      {"Inference GNMT gain at batch 1", 44, m("gnmt/inf_gain"),
       "With the two directions of the bidirectional layer in turn each holds its 16 MiB of weights "
       "(28.3x; fused they needed all 32 MiB of scratchpad and refetched every step: 7.9x). What remains "
       "is the array at batch 1: each LSTM step streams one sample through 16 SIMD lanes (8 x 8 PEs x 16 "
       "lanes, this project's choice for the 1024 MACs; the paper gives no P). With the same 1024 MACs as "
       "a 32 x 32 array of 1-lane PEs the gain is 59.1x (+34 %); the paper's 44x lies between the two."},
      {"GNMT 8 -> 32 PFLOP/s with optimizations (Fig. 14; ours: 256 chips all opts / 64 chips DSM)", 22.7,
       ratio("gnmt/scale/64/none", "gnmt/scale/256/all"), ""},
      {"VGG16 Mem-Opt gain over no Mem-Opt, best scratchpad (Fig. 15, up to 12 %)", 1.12,
       ratio("vgg16/spad/8/hybrid,memreuse", "vgg16/spad/8/hybrid"), ""},
      {"ResNet50 Mem-Opt, 1 MB over 0.5 MB (Fig. 15, +37 %)", 1.37,
       ratio("resnet50/spad/2/hybrid,memreuse", "resnet50/spad/1/hybrid,memreuse"),
       "Our ResNet50 already reuses most edges at 0.5 MiB (S_mb-independent tiles of 100-400 KB); the "
       "saturation at 1 MiB matches, the step is smaller because the reuse gain itself is smaller."},
  };
}

void side_by_side() {
  g_view = &g_metric_latency;
  const std::vector<Row> with_latency = comparison_rows();
  g_view = &g_metric;
  const std::vector<Row> rows = comparison_rows();
  emit("## Side by side with the paper\n\n");
  emit("Gap = partsim / paper - 1 in the paper's bandwidth-centric model (the figures above). Rows over "
       "15 %% are explained; the paper's ranges are compared with their middle. The last column gives the "
       "same figure on the configs as they are (500 ns per chip-to-chip link, 10 ns per on-chip hop).\n\n"
       "| figure | paper | partsim | gap | why | with link latency |\n|---|---|---|---|---|---|\n");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    const double gap = r.paper > 0 ? r.ours / r.paper - 1 : 0;
    const bool big = gap > 0.15 || gap < -0.15;
    emit("| %s | %.3g | %.3g | %+.0f %% | %s | %.3g |\n", r.what.c_str(), r.paper, r.ours, 100 * gap,
         big ? (r.why.empty() ? "NOT EXPLAINED (the model changed since this text was written)" : r.why.c_str())
             : "within 15 %",
         with_latency[i].ours);
  }
  emit("\n");
}

// What the configs' link latencies do (docs/model.md, "Link latency").
void latency_table() {
  const auto& a = g_metric;
  const auto& b = g_metric_latency;
  emit("## What link latency does\n\n");
  emit("The figures above use the paper's bandwidth-centric model (§II-D): transfers are timed by the "
       "bytes each link carries, with no per-hop latency (`--set system.torus.latency[0]=0s --set "
       "system.torus.latency[1]=0s --set system.device_types.dsm_chip.chip.on_chip_latency=0s`). The "
       "configs themselves charge 500 ns per chip-to-chip hop and 10 ns per on-chip hop (this project's "
       "choice, configs/torus_8pf.yaml); every rotation step, ring step of a gradient reduction and "
       "relayout pays it. Iteration times in seconds, N_mb 256 unless said:\n\n");
  emit("| figure | paper's model | with latency | latency / paper's model |\n|---|---|---|---|\n");
  for (const std::string w : {"vgg16", "resnet50", "gnmt"})
    for (int bar = 0; bar < 4; ++bar) {
      const std::string key = w + "/256/" + std::to_string(bar) + "/thr";
      const double ta = 256 / a.at(key), tb = 256 / b.at(key);
      static const char* const names[] = {"DSM", "+Hybrid", "+MemOpt", "+DySM/+TP"};
      emit("| %s %s iteration (Fig. 11) | %.4f s | %.4f s | %.2fx |\n", w.c_str(), names[bar], ta, tb, tb / ta);
    }
  for (const std::string w : {"vgg16", "resnet50", "gnmt"}) {
    const std::string key = w + "/gain";
    emit("| %s gain over DSM at 256 | %.2fx | %.2fx | |\n", w.c_str(), a.at(key), b.at(key));
  }
  for (const std::string w : {"vgg16", "resnet50", "gnmt"}) {
    const std::string key = w + "/inf_gain";
    emit("| %s inference gain, batch 1 | %.2fx | %.2fx | |\n", w.c_str(), a.at(key), b.at(key));
  }
  emit("\nFig. 14 with latency (speedup over 16 chips without optimizations, N_mb 1024):\n\n"
       "| chips | vgg16 DSM | vgg16 all opts | resnet50 DSM | resnet50 all opts | gnmt DSM | gnmt all opts |\n"
       "|---|---|---|---|---|---|---|\n");
  for (int chips : {16, 32, 64, 128, 256}) {
    emit("| %d |", chips);
    for (const std::string w : {"vgg16", "resnet50", "gnmt"})
      for (const char* o : {"none", "all"})
        emit(" %.2f |", b.at(w + "/scale/16/none") / b.at(w + "/scale/" + std::to_string(chips) + "/" + o));
    emit("\n");
  }
  emit("\n");
}

// The paper's bandwidth-centric model (§II-D: "we time data-transfers through each link ... and match
// them against the time it takes to process the data fetched"): no per-hop latency on the torus links
// or the on-chip ring. The reproduction applies these to both configs, as simplan's --set would.
constexpr const char* kPaperModelSets[] = {"system.torus.latency[0]=0s", "system.torus.latency[1]=0s",
                                           "system.device_types.dsm_chip.chip.on_chip_latency=0s"};

void run_figures(const dsm::DsmSystem& sym, const dsm::DsmSystem& asym) {
  fig11_training(sym, asym);
  fig11_inference(asym);
  fig12(asym);
  fig14(asym);
  fig15(asym);
}


constexpr const char* kUsage =
    "usage: dsm_reproduce report CONFIG_DIR\n"
    "       dsm_reproduce layers CONFIG WORKLOAD BATCH OPTS [inference]\n"
    "seed 003's figures (report: Markdown on stdout, what scripts/reproduce_dsm.sh writes to\n"
    "docs/reproductions/dsm.md) or one per-layer table of the DeepSpatialMatrix model\n";

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (args.size() >= 5 && args[0] == "layers") {
      const dsm::DsmSystem sys = dsm::make_dsm_system(topology::load_system(args[1]));
      const plan::Mode mode = args.size() > 5 && args[5] == "inference" ? plan::Mode::inference : plan::Mode::training;
      print_layers(mode == plan::Mode::inference ? dsm::single_chip(sys) : sys, args[2], std::stoll(args[3]), args[4],
                   mode);
      return 0;
    }
    if (args.size() == 2 && args[0] == "report") {
      // The configs' own platforms (500 ns per chip-to-chip link, 10 ns per on-chip hop) first, into
      // g_metric_latency with the figures discarded; then the paper's bandwidth-centric model.
      const auto load = [&](const std::string& file, const std::vector<std::string>& sets) {
        return dsm::make_dsm_system(topology::load_system(args[1] + "/" + file, sets));
      };
      {
        std::FILE* scratch = std::tmpfile();
        if (!scratch) throw std::runtime_error("cannot open a scratch file");
        g_out = scratch;
        run_figures(load("torus_8pf.yaml", {}), load("torus_8pf_asym.yaml", {}));
        g_out = stdout;
        std::fclose(scratch);
        g_metric_latency.swap(g_metric);
        g_metric.clear();
      }
      std::vector<std::string> paper_model;
      for (const char* set : kPaperModelSets) paper_model.emplace_back(set);
      run_figures(load("torus_8pf.yaml", paper_model), load("torus_8pf_asym.yaml", paper_model));
      side_by_side();
      latency_table();
      return 0;
    }
    std::fputs(kUsage, stderr);
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dsm_reproduce: error: %s\n", e.what());
    return 2;
  }
}
