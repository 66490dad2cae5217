#include "sim/program/jitter.hpp"

#include "sim/common/error.hpp"

namespace partsim::program {

double jitter_factor(const Jitter& jitter, std::size_t task) {
  if (jitter.relative == 0) return 1;
  // splitmix64 of (seed, task): a well-mixed 64-bit draw per task.
  std::uint64_t z = jitter.seed + 0x9e3779b97f4a7c15ULL * (static_cast<std::uint64_t>(task) + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  const double u = static_cast<double>(z >> 11) * 0x1.0p-52 - 1.0;  // 53 bits -> [-1, 1)
  return 1 + jitter.relative * u;
}

void check_jitter(const Jitter& jitter) {
  if (!(jitter.relative >= 0 && jitter.relative < 1)) throw Error("jitter: relative must be in [0, 1)");
}

Program jittered(const Program& program, const Jitter& jitter) {
  check_jitter(jitter);
  Program out;
  for (const auto& name : program.layer_names()) out.add_layer(name);
  const TaskList& tasks = program.tasks();
  for (std::size_t i = 0; i < program.size(); ++i) {
    Task t = tasks[i];
    if (t.kind != TaskKind::transfer) t.seconds *= jitter_factor(jitter, i);
    out.add(t);
  }
  return out;
}

}  // namespace partsim::program
