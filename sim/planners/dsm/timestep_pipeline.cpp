// Timestep pipelining of seed 003 §III-D (timestep_pipeline.hpp).

#include "sim/planners/dsm/timestep_pipeline.hpp"

#include <algorithm>

namespace partsim::dsm::detail {

namespace {

/// Pipelines groups [begin, end) as pipe group `id` if that beats their sequential plan in `r`;
/// returns whether it did.
bool try_pipeline(NetworkSearch& search, DsmResult& r, std::size_t begin, std::size_t end, int id) {
  const GroupChain& net = search.network();
  const DsmSystem& s = search.system();
  const DsmOptions& o = search.options();
  const std::size_t G = end - begin;
  // Chips by OPS (§III-D): whole rows of the torus, proportional to each layer's MACs.
  std::vector<double> macs(G);
  double total_macs = 0;
  for (std::size_t j = 0; j < G; ++j) total_macs += macs[j] = net.groups[begin + j].layer.macs();
  std::vector<int> rows(G, 1);
  int left = s.N - static_cast<int>(G);
  std::vector<double> want(G);
  for (std::size_t j = 0; j < G; ++j) want[j] = macs[j] / total_macs * s.N - 1.0;
  while (left > 0) {
    std::size_t k = 0;
    for (std::size_t j = 1; j < G; ++j)
      if (want[j] - rows[j] > want[k] - rows[k]) k = j;
    ++rows[k];
    --left;
  }
  // Per stage and pass: time per timestep on its sub-torus, plus handing its output on.
  const long long ts = net.groups[begin].layer.ts;
  std::vector<std::vector<PassChoice>> stage(G);
  std::vector<ChipSplit> splits(G);
  std::vector<double> grad(G, 0);
  for (std::size_t j = 0; j < G; ++j) {
    const DsmLayer& L = net.groups[begin + j].layer;
    const DsmSystem sub = sub_torus(s, rows[j]);
    double best = kInf;
    const NetworkSearch local(net, sub, o);
    for (ChipSplit sp : local.splits_for(L)) {
      std::vector<PassChoice> pcs;
      double sum = 0;
      for (Pass pass : passes_of(L, o)) {
        const PassFlags base = flags_for(pass, false, false, search.inference());
        const PassEval ev =
            best_pass(L, pass, sp, ts, base, o.memreuse, search.capacity(), sub, search.factorizations());
        PassChoice pc = choice_of(pass, ev, ts);
        const double hand_on = (j + 1 < G && pass != Pass::upd)
                                   ? L.out_elements * s.bytes_per_element / (s.M * s.bw_y) + s.lat_y
                                   : 0.0;
        pc.total_s = ev.total / static_cast<double>(ts) + hand_on;  // per timestep for now
        if (pass == Pass::upd) pc.grad_reduction_s = gradient_time(L, sp, sub);
        sum += pc.total_s;
        pcs.push_back(pc);
      }
      if (sum < best) {
        best = sum;
        stage[j] = pcs;
        splits[j] = sp;
      }
    }
    for (const auto& pc : stage[j]) grad[j] += pc.grad_reduction_s;
  }
  // Pipelined time: (ts + G - 1) steps of the slowest stage per pass; gradient reductions of the
  // stages run concurrently on disjoint chips.
  const std::size_t passes = stage[0].size();
  double group_total = 0;
  std::vector<double> pass_time(passes, 0);
  for (std::size_t p = 0; p < passes; ++p) {
    double slow = 0;
    for (std::size_t j = 0; j < G; ++j) slow = std::max(slow, stage[j][p].total_s);
    pass_time[p] = static_cast<double>(ts + static_cast<long long>(G) - 1) * slow;
    group_total += pass_time[p];
  }
  const double grad_max = *std::max_element(grad.begin(), grad.end());
  group_total += grad_max;
  double current = 0;
  for (std::size_t j = begin; j < end; ++j) current += r.layers[j].total_s;
  if (group_total >= current) return false;
  int row0 = 0;
  for (std::size_t j = 0; j < G; ++j) {
    LayerChoice& lc = r.layers[begin + j];
    lc.split = splits[j];
    lc.dysm_factor = 1;
    lc.reuse_in = false;
    lc.reuse_out = false;  // stage passes are costed without memory reuse (flags_for(pass, false, false))
    lc.pipe_group = id;
    lc.chips.clear();
    for (int y = row0; y < row0 + rows[j]; ++y)
      for (int x = 0; x < s.M; ++x) lc.chips.push_back(x + s.M * y);
    row0 += rows[j];
    lc.passes = stage[j];
  }
  // Each layer reports its share of every pass (by its stage time) and of the reductions.
  for (std::size_t p = 0; p < passes; ++p) {
    double sum = 0;
    for (std::size_t j = 0; j < G; ++j) sum += stage[j][p].total_s;
    for (std::size_t j = 0; j < G; ++j) {
      PassChoice& pc = r.layers[begin + j].passes[p];
      const double share = sum > 0 ? stage[j][p].total_s / sum : 1.0 / static_cast<double>(G);
      pc.pipelined_s = pass_time[p] * share;
      if (pc.pass == Pass::upd) {
        double gsum = 0;
        for (double g : grad) gsum += g;
        const double gshare = gsum > 0 ? grad[j] / gsum : 0.0;
        pc.pipelined_s += grad_max * gshare;
      }
    }
  }
  return true;
}

}  // namespace

void pipeline_timesteps(NetworkSearch& search, DsmResult& r) {
  const GroupChain& net = search.network();
  const DsmSystem& s = search.system();
  const std::size_t n = net.groups.size();
  int next_id = 0;
  std::size_t l = 0;
  while (l < n) {
    auto pipelinable = [&](std::size_t i) {
      const auto& L = net.groups[i].layer;
      return L.primary && L.lstm && !L.bidirectional && L.ts > 1;
    };
    if (!pipelinable(l)) {
      ++l;
      continue;
    }
    std::size_t end = l + 1;
    while (end < n && pipelinable(end) && net.groups[end].primary_producer == static_cast<std::ptrdiff_t>(end - 1) &&
           end - l < static_cast<std::size_t>(s.N))
      ++end;
    if (end - l >= 2 && try_pipeline(search, r, l, end, next_id)) ++next_id;
    l = end;
  }
  search.charge_edges(r);
  search.finish(r);
}

}  // namespace partsim::dsm::detail
