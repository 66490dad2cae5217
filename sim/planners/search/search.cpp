#include "sim/planners/search/search.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <unordered_set>

#include "sim/common/error.hpp"

namespace partsim::search {
namespace {

using Clock = std::chrono::steady_clock;

std::string gib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g GiB", bytes / (1024.0 * 1024 * 1024));
  return text;
}

// A candidate's identity for the memo: every layer's sharding and the schedule.
std::string key_of(const plan::Plan& p) {
  std::string key;
  key.reserve(p.layers.size() * 24);
  for (const auto& layer : p.layers) {
    const plan::Sharding& s = layer.sharding;
    for (int d : s.devices) key += std::to_string(d) + ',';
    key += '|';
    for (const auto& split : s.splits) {
      key += std::to_string(static_cast<int>(split.dim)) + ':' + std::to_string(split.parts);
      for (double share : split.shares) key += '/' + std::to_string(share);
      for (int size : split.sizes) key += '#' + std::to_string(size);
      key += ';';
    }
    if (s.shared) key += 's' + std::to_string(static_cast<int>(*s.shared));
    key += '\n';
  }
  const plan::ScheduleDirectives& d = p.schedule;
  key += std::to_string(static_cast<int>(d.gradient_sync_order)) + ' ' + std::to_string(d.gradient_bucket_bytes) + ' ' +
         std::to_string(d.overlap_gradient_sync);
  return key;
}

// Every layer's menu: the layouts that fit it, then the seeds' own shardings of it, without repeats.
std::vector<std::vector<plan::Sharding>> layer_menus(const std::vector<Layout>& menu, const std::vector<Candidate>& seeds,
                                                     const workloads::Graph& graph) {
  std::vector<std::vector<plan::Sharding>> menus(graph.layers().size());
  for (std::size_t v = 0; v < menus.size(); ++v) {
    auto add = [&](const plan::Sharding& s) {
      if (std::find(menus[v].begin(), menus[v].end(), s) == menus[v].end()) menus[v].push_back(s);
    };
    for (const Layout& layout : menu)
      if (auto s = realize(layout, graph.layers()[v], graph.batch())) add(*s);
    for (const Candidate& seed : seeds)
      if (seed.lowered_by.empty() && v < seed.plan.layers.size()) add(seed.plan.layers[v].sharding);
  }
  return menus;
}

class Walk {
 public:
  Walk(const std::vector<Candidate>& seeds, const Pricer& pricer, const workloads::Graph& graph, int device_count,
       plan::Mode mode, const SearchOptions& o, const ProgressCallback& progress)
      : seeds_(seeds), pricer_(pricer), graph_(graph), o_(o), progress_(progress), rng_(o.seed),
        layouts_(layouts(device_count, o.kinds)), menus_(layer_menus(layouts_, seeds, graph)),
        schedules_(mode == plan::Mode::training && o.search_schedule ? schedule_variants()
                                                                      : std::vector<plan::ScheduleDirectives>{}),
        start_(Clock::now()) {}

  SearchResult run() {
    price_seeds();
    if (!has_best_) start_from_layouts();
    if (!has_best_) {
      std::string least;
      if (least_memory_)
        least = " (the least any plan needed: " + gib(least_memory_->per_device_bytes) + " on a device" +
                (least_memory_->device.empty() ? "" : " (" + least_memory_->device + ")") + " of " +
                gib(least_memory_->capacity_bytes) + ")";
      throw InputError("strategy search: no seed plan and no layout of the menu fits the platform's memory" + least +
                       (refusal_.empty() ? "" : "; the lowering refused: " + refusal_));
    }
    while (true) {
      if (o_.candidates > 0 && result_.candidates >= o_.candidates) {
        result_.stopped_by = "candidates";
        break;
      }
      if (spent()) {
        result_.stopped_by = "budget";
        break;
      }
      if (misses_ > 50 * std::max<long long>(o_.patience, 1)) {  // every move lands on priced candidates
        result_.stopped_by = "exhausted";
        break;
      }
      if (!current_) {  // only seeds with lowerings of their own: nothing to mutate
        result_.stopped_by = "exhausted";
        break;
      }
      if (since_best_ >= o_.patience && best_mutable_) {  // restart from the best plan the walk can change
        current_ = best_mutable_;
        current_s_ = best_mutable_s_;
        since_best_ = 0;
      }
      step();
    }
    resample();
    result_.elapsed_s = elapsed();
    return result_;
  }

 private:
  // The seeds, in two passes. First each with a tenth of the evaluation's work limit, in the order
  // of their closed forms (lower_seeds); those over it wait, with the other schedules of their
  // strategy, for the second pass, which prices them in the same order with their own limit
  // (seed_work_limit). So every seed cheap to evaluate is priced before the budget goes to dear
  // ones, and among the dear ones the most promising first: on the 1,024-chip board-bandwidth pod
  // dp's plan (inception_v3: 193 ms, evaluated in 0.1 s) and accpar's (vgg16: 249 ms against dp's
  // 1,111, evaluated in about 7 s) must both be priced, and owt's takes about 20 s to reach the
  // limit. Costs at most a tenth of the limit per dear strategy; without a limit (budget 0) one pass.
  // Each seed is lowered once, for both passes (lowered_), and let go once priced.
  void price_seeds() {
    const double first_limit = pricer_.max_work() / 10;
    std::vector<std::size_t> waiting;
    std::vector<std::string> waiting_origins;
    for (const std::size_t i : lower_seeds()) {
      const bool waits =
          std::find(waiting_origins.begin(), waiting_origins.end(), seeds_[i].origin) != waiting_origins.end();
      if (first_limit > 0 && waits) {
        waiting.push_back(i);
      } else if (!price_seed(i, first_limit, first_limit > 0)) {
        waiting.push_back(i);
        waiting_origins.push_back(seeds_[i].origin);
      }
    }
    for (const std::size_t i : waiting) price_seed(i, seed_work_limit(i), false);
    lowered_.clear();
  }

  // A seed's work limit in the second pass: a walk candidate's (the Pricer's), times the room its
  // closed form (a lower bound of its time) leaves under the best price so far, between 1 and 2 (2
  // before any seed is usable). A seed far under the best may win by a wide margin and is worth up
  // to twice the time; one whose bound is near the best seldom wins, and is refused as soon as a
  // walk candidate would be. On the board-bandwidth pod's vgg16, hypar's seed (closed form 63.6 ms
  // against accpar's 248.3 ms priced) needs 86 M re-solves (34 s) and wins at 226.9 ms, over the 50 M
  // of the default budget's limit; owt's resnet50 and inception_v3 seeds there (closed forms 197 and
  // 183 ms against dp's 207 and 193 ms) would take 90-95 s and are refused at 53 M, as before.
  double seed_work_limit(std::size_t i) const {
    constexpr double kMostRoom = 2;
    const double closed_s = lowered_[i]->closed_s();
    const double room = has_best_ && closed_s > 0 ? result_.best_price.predicted_s / closed_s : kMostRoom;
    return pricer_.max_work() * std::clamp(room, 1.0, kMostRoom);
  }

  // Prices seed `i` with `work_limit` (0: the Pricer's), or logs why it is not priced. In the first
  // pass (`first_pass`) false when it passed `work_limit` (not logged: the second pass prices it).
  bool price_seed(std::size_t i, double work_limit, bool first_pass) {
    const Candidate& seed = seeds_[i];
    if (spent() && has_best_) {  // the budget is spent: the other seeds are not priced
      LogRow row = new_row(seed, "seed");
      row.note = "not priced: the budget was spent";
      log(std::move(row));
      lowered_[i].reset();
      return true;
    }
    // The seeds of one strategy differ only in the gradient schedule: when one was over the
    // evaluation's work limit, so are the others (and pricing them would take as long).
    if (std::find(too_slow_.begin(), too_slow_.end(), seed.origin) != too_slow_.end()) {
      LogRow row = new_row(seed, "seed");
      row.note = "not priced: another schedule of this strategy's plan was over the evaluation limit";
      log(std::move(row));
      lowered_[i].reset();
      return true;
    }
    const bool priced = consider(seed, "seed", work_limit, first_pass, lowered_[i].get());
    if (priced) lowered_[i].reset();
    return priced;
  }

  // Lowers every seed once (lowered_) and returns the order they are priced in within each pass: by
  // their closed form (a lower bound of their flow time: contention only delays), the cheapest
  // first, seeds the lowering refuses last, registration order among equals; so the seeds that
  // cannot beat an earlier one are pruned without being timed (prune_at).
  std::vector<std::size_t> lower_seeds() {
    lowered_.clear();
    std::vector<double> bound(seeds_.size());
    for (std::size_t i = 0; i < seeds_.size(); ++i) {
      lowered_.push_back(pricer_.lower(seeds_[i]));
      bound[i] = lowered_[i]->refused().empty() ? lowered_[i]->closed_s() : std::numeric_limits<double>::infinity();
    }
    std::vector<std::size_t> order(seeds_.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return bound[a] < bound[b]; });
    return order;
  }

  double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  // Whether the time budget is spent. Seeds (and, without a usable seed, the one-layout plans) are
  // still priced past it until one is usable: the search always returns a plan if any fits.
  bool spent() const { return o_.budget_s > 0 && elapsed() + resampling(half_budget()).reserve_s >= o_.budget_s; }
  double half_budget() const { return o_.budget_s > 0 ? o_.budget_s / 2 : std::numeric_limits<double>::infinity(); }

  // How many finalists, and how many evaluations of each, the resampling takes, and the time it is
  // expected to need (each evaluation as long as the finalist's pricing took). Within `limit` (s;
  // half the budget, and at the end no more than what is left of it): fewer finalists first, then
  // fewer samples; none when one more evaluation is over it.
  struct Resampling {
    int finalists = 0;
    int samples = 1;
    double reserve_s = 0;
  };
  Resampling resampling(double limit) const {
    Resampling r{std::min<int>(o_.finalists, static_cast<int>(finalists_.size())), o_.samples, 0};
    // The closed form has no contention to be chaotic: nothing to resample.
    if (r.finalists == 0 || r.samples <= 1 || pricer_.evaluator() != EvaluatorKind::flow) return {};
    auto cost = [&](int k, int samples) {
      double s = 0;
      for (int i = 0; i < k; ++i) s += finalists_[static_cast<std::size_t>(i)].pricing_s;
      return s * (samples - 1);
    };
    while (r.finalists > 1 && cost(r.finalists, r.samples) > limit) --r.finalists;
    while (r.samples > 2 && cost(r.finalists, r.samples) > limit) --r.samples;
    if (cost(r.finalists, r.samples) > limit) return {};
    r.reserve_s = cost(r.finalists, r.samples);
    return r;
  }

  // Keeps `c` among the finalists when it is one of the best `finalists` distinct usable candidates.
  void offer_finalist(const Candidate& c, const Price& price, double pricing_s) {
    if (o_.finalists <= 0) return;
    // Two candidates that lower to the same Program (a schedule field the lowering does not read)
    // price the same to the last bit: one finalist for both.
    for (const Finalist& f : finalists_)
      if (f.price.predicted_s == price.predicted_s && f.price.closed_s == price.closed_s) return;
    const auto at = std::find_if(finalists_.begin(), finalists_.end(),
                                 [&](const Finalist& f) { return price.predicted_s < f.price.predicted_s; });
    if (at == finalists_.end() && finalists_.size() >= static_cast<std::size_t>(o_.finalists)) return;
    finalists_.insert(at, {c, price, pricing_s});
    if (finalists_.size() > static_cast<std::size_t>(o_.finalists)) finalists_.pop_back();
  }

  // Resamples the finalists (file comment) and makes the one with the lowest mean the result.
  // The estimate that kept time for it (resampling(): each evaluation as long as the finalist's
  // pricing) can be several times short: a jittered program's devices no longer finish together, so
  // the flow evaluator re-solves where the exact evaluation had coalesced (owt's plan of resnet50 on
  // the 256-chip board-bandwidth torus: 7.9 s per jittered evaluation against 2.5 s priced, and the
  // search 77 s instead of 40). So each finalist's first jittered evaluation is timed, best first,
  // while the time left allows one more at the slowest ratio seen, and the number of samples then
  // follows from those times: every finalist resampled the same number of times, within the time
  // left but for about one evaluation.
  void resample() {
    const Resampling planned =
        resampling(o_.budget_s > 0 ? std::min(half_budget(), std::max(0.0, o_.budget_s - elapsed())) : half_budget());
    if (planned.finalists == 0) return;
    const double end_s = o_.budget_s > 0 ? elapsed() + std::min(half_budget(), std::max(0.0, o_.budget_s - elapsed()))
                                         : std::numeric_limits<double>::infinity();
    const std::uint64_t seed = o_.seed * 1'000'003ULL;
    std::vector<std::vector<double>> more;  // per finalist: its jittered makespans (seeds seed + 1 ...)
    std::vector<double> took_s;             // per finalist: the time its resampling took
    // slower: the first evaluations' time against their pricing so far (a pricing under a quarter of
    // a second counted as that: the lowering's own time would make a fast plan's ratio look large).
    double round_s = 0, priced_s = 0, slower = 1;
    constexpr double kLeastPricing_s = 0.25;
    for (std::size_t i = 0; i < static_cast<std::size_t>(planned.finalists); ++i) {
      if (i > 0 && elapsed() + finalists_[i].pricing_s * slower > end_s) break;
      const auto at = Clock::now();
      more.push_back(pricer_.resample(finalists_[i].candidate, 1, o_.jitter, seed));
      took_s.push_back(std::chrono::duration<double>(Clock::now() - at).count());
      round_s += took_s.back();
      priced_s += std::max(finalists_[i].pricing_s, kLeastPricing_s);
      slower = std::max(1.0, round_s / priced_s);
    }
    int samples = o_.samples;
    if (round_s > 0) {
      const double left = std::max(0.0, end_s - elapsed());
      samples = static_cast<int>(std::min<double>(o_.samples, 2 + std::floor(std::min(left / round_s, 1e6))));
    }
    std::vector<LogRow> rows;
    std::size_t chosen = 0;
    for (std::size_t i = 0; i < more.size(); ++i) {
      Finalist& f = finalists_[i];
      // Seeds seed + 2 ... after the first's seed + 1, as one call would have used them; none more
      // when the first passed the work limit.
      if (!more[i].empty() && samples > 2) {
        const auto at = Clock::now();
        const std::vector<double> rest = pricer_.resample(f.candidate, samples - 2, o_.jitter, seed + 1);
        more[i].insert(more[i].end(), rest.begin(), rest.end());
        took_s[i] += std::chrono::duration<double>(Clock::now() - at).count();
      }
      f.price.samples = {f.price.predicted_s};
      f.price.samples.insert(f.price.samples.end(), more[i].begin(), more[i].end());
      double sum = 0;
      for (double v : f.price.samples) sum += v;
      const double exact = f.price.predicted_s;
      f.price.predicted_s = sum / static_cast<double>(f.price.samples.size());
      if (f.price.predicted_s < finalists_[chosen].price.predicted_s) chosen = i;
      LogRow row = new_row(f.candidate, "resample");
      row.predicted_s = f.price.predicted_s;
      row.closed_s = f.price.closed_s;
      row.usable = true;
      const auto [lo, hi] = f.price.sample_range();
      char note[200];
      std::snprintf(note, sizeof note, "mean of %zu evaluations (exact %.6g s, min %.6g s, max %.6g s) in %.3g s",
                    f.price.samples.size(), exact, lo, hi, took_s[i]);
      row.note = note;
      rows.push_back(std::move(row));
    }
    result_.best = finalists_[chosen].candidate;
    result_.best_price = finalists_[chosen].price;
    result_.resampled = static_cast<int>(more.size());
    result_.samples = samples;
    rows[chosen].accepted = true;
    for (LogRow& row : rows) log(std::move(row));
  }
  std::size_t draw(std::size_t n) { return static_cast<std::size_t>(rng_() % n); }
  double uniform() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }

  // The price a candidate must stay under to matter; at or over it the flow evaluator is not run
  // (Pricer::price: the closed form is a lower bound of it). A seed on the shared lowering must beat
  // the best such seed (the walk starts from it), one with a lowering of its own the best of all. A
  // move must stay under the current price x (1 + 5 T): above it the walk would accept it with
  // probability under exp(-5), 0.7 %, and it cannot be the best.
  double prune_at(const Candidate& c, bool seed) const {
    constexpr double kNone = std::numeric_limits<double>::infinity();
    if (seed) {
      if (c.lowered_by.empty()) return best_mutable_ ? best_mutable_s_ : kNone;
      return has_best_ ? result_.best_price.predicted_s : kNone;
    }
    return current_ ? current_s_ * (1 + 5 * o_.temperature) : kNone;
  }

  // No seed usable (all over memory, say): the walk starts from each one-layout plan in turn.
  void start_from_layouts() {
    if (seeds_.empty()) return;
    const Candidate* base = nullptr;
    for (const Candidate& s : seeds_)
      if (s.lowered_by.empty()) base = &s;
    if (base == nullptr) return;
    for (const Layout& layout : layouts_) {
      if (spent() && has_best_) return;
      Candidate c = *base;
      for (std::size_t v = 0; v < c.plan.layers.size(); ++v)
        if (auto s = realize(layout, graph_.layers()[v], graph_.batch())) c.plan.layers[v].sharding = *s;
      consider(c, "layout " + layout.name());
    }
  }

  // Prices a candidate not priced before, logs it, and keeps it as the best, the best the walk can
  // change and the walk's current one where it is. `work_limit` > 0: the evaluation's work limit
  // instead of the Pricer's. `first_pass`: a candidate over it is neither logged nor remembered, and
  // false is returned (price_seeds). `lowered`: `c` already lowered (the seeds).
  bool consider(const Candidate& c, const std::string& move, double work_limit = 0, bool first_pass = false,
                const LoweredCandidate* lowered = nullptr) {
    const bool seed = move == "seed";
    if (c.lowered_by.empty() && !memo_.insert(key_of(c.plan)).second) {
      ++misses_;
      return true;
    }
    misses_ = 0;
    const auto priced_at = Clock::now();
    const Price price = lowered ? pricer_.price(*lowered, prune_at(c, seed), work_limit)
                                : pricer_.price(c, prune_at(c, seed), work_limit);
    const double pricing_s = std::chrono::duration<double>(Clock::now() - priced_at).count();
    if (first_pass && price.over_work_limit) {
      if (c.lowered_by.empty()) memo_.erase(key_of(c.plan));
      return false;
    }
    if (o_.on_priced) o_.on_priced(c, price);
    if (price.memory && price.refused.empty() && (!least_memory_ || price.memory->per_device_bytes < least_memory_->per_device_bytes))
      least_memory_ = price.memory;
    if (!price.refused.empty() && refusal_.empty()) refusal_ = price.refused;
    if (seed && price.over_work_limit) too_slow_.push_back(c.origin);
    LogRow row = new_row(c, move);
    row.predicted_s = price.predicted_s;
    row.closed_s = price.closed_s;
    row.usable = price.usable();
    row.note = !price.refused.empty() ? "refused: " + price.refused
               : !price.fits              ? "over memory"
               : price.pruned             ? "pruned: its closed form (predicted_s) cannot win"
                                          : "";
    if (!seed) ++result_.candidates;
    ++since_best_;
    if (row.usable) {
      offer_finalist(c, price, pricing_s);
      const bool better = !has_best_ || price.predicted_s < result_.best_price.predicted_s;
      if (better) {
        has_best_ = true;
        result_.best = c;
        result_.best_price = price;
        since_best_ = 0;
      }
      // The walk moves only among plans it can mutate.
      if (c.lowered_by.empty()) {
        if (!best_mutable_ || price.predicted_s < best_mutable_s_) {
          best_mutable_ = c;
          best_mutable_s_ = price.predicted_s;
          since_best_ = 0;
        }
        // Seeds: the walk starts from the cheapest. Moves: Metropolis-Hastings (file comment).
        const bool accept = !current_ || price.predicted_s < current_s_ ||
                            (!seed && uniform() < std::exp(-(price.predicted_s - current_s_) / (o_.temperature * current_s_)));
        if (accept) {
          current_ = c;
          current_s_ = price.predicted_s;
          row.accepted = true;
        }
      }
    }
    log(std::move(row));
    if (progress_)
      progress_({static_cast<std::size_t>(result_.log.size()),
                 static_cast<std::size_t>(seeds_.size() + static_cast<std::size_t>(std::max<long long>(o_.candidates, 0))),
                 "candidates", has_best_ ? std::optional<double>(result_.best_price.predicted_s) : std::nullopt});
    return true;
  }

  // A log row for candidate `c` proposed by `move`; log() stamps its index, the best so far and the time.
  static LogRow new_row(const Candidate& c, const std::string& move) {
    LogRow row;
    row.move = move;
    row.origin = c.origin;
    row.schedule = schedule_label(c.plan.schedule);
    return row;
  }

  void log(LogRow row) {
    row.index = static_cast<long long>(result_.log.size());
    row.best_s = has_best_ ? result_.best_price.predicted_s : 0;
    row.elapsed_s = elapsed();
    result_.log.push_back(std::move(row));
  }

  void step() {
    Candidate next = *current_;
    auto& layers = next.plan.layers;
    const std::size_t n = layers.size();
    std::vector<std::string> kinds{"layer", "run", "boundary"};
    if (schedules_.size() > 1) kinds.push_back("schedule");
    const std::string kind = kinds[draw(kinds.size())];
    if (kind == "layer") {
      const std::size_t v = draw(n);
      if (menus_[v].empty()) return;
      layers[v].sharding = menus_[v][draw(menus_[v].size())];
    } else if (kind == "run") {
      if (layouts_.empty()) return;
      const Layout& layout = layouts_[draw(layouts_.size())];
      const std::size_t length = 2 + draw(7);
      const std::size_t first = draw(n);
      for (std::size_t v = first; v < std::min(n, first + length); ++v)
        if (auto s = realize(layout, graph_.layers()[v], graph_.batch())) layers[v].sharding = *s;
    } else if (kind == "boundary") {
      std::vector<std::size_t> edges;
      for (std::size_t v = 0; v + 1 < n; ++v)
        if (!(layers[v].sharding == layers[v + 1].sharding)) edges.push_back(v);
      if (edges.empty()) return;
      const std::size_t v = edges[draw(edges.size())];
      if (draw(2) == 0)
        layers[v].sharding = layers[v + 1].sharding;
      else
        layers[v + 1].sharding = layers[v].sharding;
    } else {
      next.plan.schedule = with_gradient_schedule(next.plan.schedule, schedules_[draw(schedules_.size())]);
    }
    consider(next, kind);
  }

  const std::vector<Candidate>& seeds_;
  const Pricer& pricer_;
  const workloads::Graph& graph_;
  const SearchOptions& o_;
  const ProgressCallback& progress_;
  std::mt19937_64 rng_;
  std::vector<Layout> layouts_;
  std::vector<std::vector<plan::Sharding>> menus_;
  std::vector<plan::ScheduleDirectives> schedules_;
  Clock::time_point start_;
  std::unordered_set<std::string> memo_;
  std::optional<Candidate> current_;
  double current_s_ = 0;
  std::optional<Candidate> best_mutable_;  // the best candidate on the shared lowering
  double best_mutable_s_ = 0;
  long long since_best_ = 0;
  long long misses_ = 0;
  bool has_best_ = false;
  std::optional<plan::MemoryUse> least_memory_;  // the candidate that needed the least memory
  std::string refusal_;                          // the first reason the lowering gave
  std::vector<std::string> too_slow_;            // seed strategies whose plan was over the work limit
  std::vector<std::unique_ptr<const LoweredCandidate>> lowered_;  // per seed, until it is priced
  SearchResult result_;
  struct Finalist {
    Candidate candidate;
    Price price;
    double pricing_s = 0;  // wall time its pricing took
  };
  std::vector<Finalist> finalists_;  // the best usable candidates, cheapest first
};

}  // namespace

std::vector<plan::ScheduleDirectives> schedule_variants() {
  plan::ScheduleDirectives concurrent;
  plan::ScheduleDirectives bucketed;
  bucketed.gradient_sync_order = plan::GradientSyncOrder::in_order;
  bucketed.gradient_bucket_bytes = 25e6;
  plan::ScheduleDirectives in_order;
  in_order.gradient_sync_order = plan::GradientSyncOrder::in_order;
  return {concurrent, bucketed, in_order};
}

plan::ScheduleDirectives with_gradient_schedule(plan::ScheduleDirectives schedule, const plan::ScheduleDirectives& variant) {
  schedule.gradient_sync_order = variant.gradient_sync_order;
  schedule.gradient_bucket_bytes = variant.gradient_bucket_bytes;
  return schedule;
}

std::string schedule_label(const plan::ScheduleDirectives& schedule) {
  std::string label = schedule.gradient_sync_order == plan::GradientSyncOrder::in_order ? "in_order" : "concurrent";
  if (schedule.gradient_bucket_bytes > 0) {
    char mb[32];
    std::snprintf(mb, sizeof mb, "/%gMB", schedule.gradient_bucket_bytes / 1e6);
    label += mb;
  }
  return label;
}

SearchResult run_search(const std::vector<Candidate>& seeds, const Pricer& pricer, const workloads::Graph& graph,
                        int device_count, plan::Mode mode, const SearchOptions& options, const ProgressCallback& progress) {
  return Walk(seeds, pricer, graph, device_count, mode, options, progress).run();
}

}  // namespace partsim::search
