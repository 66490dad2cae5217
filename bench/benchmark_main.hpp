#pragma once
// main() of the Google Benchmark programs in bench/: --help prints what the program measures and
// its usage before the library's own flags (the library then exits with 0); other flags go to the
// library, which refuses unknown ones with exit code 2 here (BENCHMARK_MAIN would run anyway).

#include <benchmark/benchmark.h>

#include <cstdio>
#include <string_view>

namespace partsim::bench {

/// Runs the registered benchmarks; `after` (optional) runs once they are done.
template <class After>
int benchmark_main(int argc, char** argv, const char* name, const char* description, After after) {
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "--help") {
      std::printf("%s: %s\nusage: %s [Google Benchmark flags, e.g. --benchmark_filter=REGEX]\n\n", name, description,
                  name);
      std::fflush(stdout);
    }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  after();
  return 0;
}

inline int benchmark_main(int argc, char** argv, const char* name, const char* description) {
  return benchmark_main(argc, argv, name, description, [] {});
}

}  // namespace partsim::bench
