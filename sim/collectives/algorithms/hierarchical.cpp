// Hierarchical collectives over locality domains (n nodes of q members; NCCL's and Horovod's
// hierarchical all-reduce, ASTRA-sim's multi-dimensional collectives): all-reduce = reduce-scatter
// inside every node at once (each member ends with S / q), ring all-reduce of that shard between the
// same member of every node (one ring per member index: on a rail-optimised cluster each ring runs on
// its own rail), all-gather inside every node. Reduce-scatter is the first two phases (the second a
// reduce-scatter), all-gather the reverse. Needs domains of equal size.
//
// Inside a node the phases are rings, except an all-reduce whose nodes each sit on a switch that
// reduces (NCCL's NVLS tree): there the reduce-scatter is the switch's reduction (a member's port
// carries S up and S/q down) and the all-gather its multicast (S/q up, S down), each one step of
// transfers through the switch as the in_switch algorithm writes them (in_switch.cpp): a port carries
// its busier direction's bytes / in_switch_efficiency.
//
// Pipelining (as NCCL runs its hierarchical algorithms chunk by chunk): the payload is cut into k
// chunks, and phase i of chunk c runs in block c + i, so the phases of different chunks overlap:
// while the network carries chunk c between nodes, NVLink reduces chunk c + 1. A block starts when
// the previous block has finished (schedule.hpp's step barrier); in it every active phase runs its
// steps from the block's first step, and phases on the same links add their loads (the step rule).
// Inside a reducing switch a block that runs the reduce-scatter of one chunk and the all-gather of
// another carries S_c (q + 1) / q each way (the two use opposite directions), one phase alone S_c.
// k is the one of 1, 2, 4, 8, 16 whose closed form (below) is fastest; ties go to the smaller.

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/collectives/algorithms/algorithms.hpp"
#include "sim/common/error.hpp"

namespace partsim::collectives::algorithms {
namespace {

enum class Level { intra, inter };

constexpr int kChunkChoices[] = {1, 2, 4, 8, 16};

/// Ring k of the phases between nodes: member k of every domain.
std::vector<std::vector<int>> across_domains(const std::vector<std::vector<int>>& domains) {
  std::vector<std::vector<int>> rings(domains.front().size());
  for (const auto& d : domains)
    for (std::size_t k = 0; k < d.size(); ++k) rings[k].push_back(d[k]);
  return rings;
}

/// The phases of one chunk, in order (a level with one member per ring has no phase).
std::vector<Level> phases_of(const std::string& collective, int q, int n) {
  std::vector<Level> all;
  if (collective == "all_reduce") all = {Level::intra, Level::inter, Level::inter, Level::intra};
  else if (collective == "reduce_scatter") all = {Level::intra, Level::inter};
  else all = {Level::inter, Level::intra};
  std::vector<Level> phases;
  for (Level l : all)
    if ((l == Level::intra && q > 1) || (l == Level::inter && n > 1)) phases.push_back(l);
  return phases;
}

/// How many phases of each level run in block t of a k-chunk pipeline.
std::pair<int, int> active_in_block(const std::vector<Level>& phases, int t, int k) {
  int intra = 0, inter = 0;
  for (int i = 0; i < static_cast<int>(phases.size()); ++i)
    if (t - i >= 0 && t - i < k) ++(phases[static_cast<std::size_t>(i)] == Level::intra ? intra : inter);
  return {intra, inter};
}

/// The bytes a member's port carries inside a reducing switch in a block running `active` phases
/// of a chunk of `chunk` bytes (0, 1 or 2: the reduce-scatter of one chunk and the all-gather of another).
double switch_bytes(int active, double chunk, int q) {
  return active == 0 ? 0.0 : active == 1 ? chunk : chunk * (q + 1) / q;
}

bool uses_switch(const std::string& collective, const Fabric& f) {
  return collective == "all_reduce" && f.domains_reduce && f.domain_size > 1;
}

/// The closed form of a k-chunk pipeline: per block, per step, the slower of the two levels' steps.
double pipelined_time(const std::string& collective, double bytes, const Fabric& f, int k) {
  const int q = f.domain_size, n = f.domains;
  const auto phases = phases_of(collective, q, n);
  const bool in_switch = uses_switch(collective, f);
  const double chunk = bytes / k;
  double total = 0;
  for (int t = 0; t < k + static_cast<int>(phases.size()) - 1; ++t) {
    const auto [intra, inter] = active_in_block(phases, t, k);
    const int intra_steps = intra == 0 ? 0 : in_switch ? 1 : q - 1;
    const int inter_steps = inter == 0 ? 0 : n - 1;
    const double intra_step = in_switch ? f.intra.alpha + switch_bytes(intra, chunk, q) /
                                                              (f.intra.bandwidth * f.in_switch_efficiency)
                                        : f.intra.alpha + intra * chunk / q / f.intra.bandwidth;
    const double inter_step = f.inter.alpha + inter * chunk / (static_cast<double>(q) * n) / f.inter.bandwidth;
    for (int j = 0; j < std::max(intra_steps, inter_steps); ++j)
      total += std::max(j < intra_steps ? intra_step : 0.0, j < inter_steps ? inter_step : 0.0);
  }
  return total;
}

/// The number of chunks whose closed form is fastest.
int pipeline_chunks(const std::string& collective, double bytes, const Fabric& f) {
  int best = 1;
  double best_s = std::numeric_limits<double>::infinity();
  for (int k : kChunkChoices) {
    const double t = pipelined_time(collective, bytes, f, k);
    if (t < best_s) {
      best_s = t;
      best = k;
    }
  }
  return best;
}

std::vector<std::vector<int>> domains_of(const Participants& who, const topology::TopologyGraph& graph) {
  return who.domains.empty() ? locality_domains(who.devices, graph) : who.domains;
}

std::string hierarchical_cannot_run(const Participants& who, const topology::TopologyGraph& graph) {
  const auto domains = domains_of(who, graph);
  for (const auto& d : domains)
    if (d.size() != domains.front().size())
      return "algorithm 'hierarchical' needs nodes of equal size; the participants fall into " +
             std::to_string(domains.size()) + " nodes of " + std::to_string(domains.front().size()) + " and " +
             std::to_string(d.size()) + " members: use ring";
  return "";
}

Schedule hierarchical_schedule(const BuildInput& in) {
  if (auto why = hierarchical_cannot_run(in.who, in.graph); !why.empty()) throw InputError(why);
  const auto domains = domains_of(in.who, in.graph);
  Schedule s;
  if (domains.empty() || in.who.devices.size() < 2) return s;
  const Fabric f = in.fabric ? *in.fabric : fabric_of(in.who, in.graph);
  const int q = static_cast<int>(domains.front().size());
  const int n = static_cast<int>(domains.size());
  const auto phases = phases_of(in.collective, q, n);
  const bool in_switch = uses_switch(in.collective, f);
  const auto rails = across_domains(domains);
  const int k = pipeline_chunks(in.collective, in.bytes, f);
  const double chunk = in.bytes / k;
  int step = 0;
  for (int t = 0; t < k + static_cast<int>(phases.size()) - 1; ++t) {
    const auto [intra, inter] = active_in_block(phases, t, k);
    // The block's phases, each from the block's first step, run at once (merge: step by step).
    Schedule block;
    if (in_switch && intra > 0) {
      const double port = switch_bytes(intra, chunk, q) / in.settings.in_switch_efficiency;
      for (const auto& d : domains)
        for (int a : d)
          for (int b : d)
            if (a != b) block.add(a, b, port / (q - 1), 0);
    } else {
      for (int i = 0; i < intra; ++i) {
        Schedule pass;
        ring_pass(pass, domains, chunk, false, 0);
        block = merge(block, pass);
      }
    }
    for (int i = 0; i < inter; ++i) {
      Schedule pass;
      ring_pass(pass, rails, chunk / q, false, 0);
      block = merge(block, pass);
    }
    for (const Transfer& x : block.transfers) s.add(x.src, x.dst, x.bytes, step + x.step);
    step += block.step_count;
  }
  return s;
}

double hierarchical_formula(const std::string& collective, double bytes, const Fabric& f) {
  if (f.p < 2) return 0;
  return pipelined_time(collective, bytes, f, pipeline_chunks(collective, bytes, f));
}

}  // namespace

Algorithm hierarchical() {
  return {"hierarchical",
          reducing_collectives(),
          "inside each node, then between the same member of every node, then inside again; pipelined in "
          "k chunks; all_reduce inside a reducing switch: the switch's reduction",
          "k = 1 all_reduce: 2(q-1)(a_in + S/(q B_in)) + 2(n-1)(a_out + S/(q n B_out)); reduce_scatter, "
          "all_gather: half; k chunks: per block the slower level's steps (docs/model.md)",
          hierarchical_schedule, hierarchical_formula, hierarchical_cannot_run, true};
}

}  // namespace partsim::collectives::algorithms
