// comm_modes_bench: what SimGrid 3.32 costs per transfer with many transfers in flight, for the two
// ways of making a host-to-host transfer (docs/model.md, "Whole-iteration scale"):
//   sendto    actor-free Comm::sendto_init started from maestro's completion callbacks, as the
//             replay does (sim/replay/program_replay.cpp): every such comm is detached, filed in
//             maestro's activity list, and each completion walks that whole list;
//   mailbox   one actor per host, Mailbox put_async / get_async and wait: each comm sits in its
//             own actors' lists, but every transfer costs simcalls and context switches.
// The traffic: H hosts on a ring of links (1 MB each step, 10 GB/s, 1 us), every host sending to
// its successor, each host's next step once its last transfer is done: H transfers in flight,
// H x steps in all. Both modes simulate the same time; the wall time per transfer is what differs.
//
// Usage: comm_modes_bench [--hosts H ...] [--transfers T]; comm_modes_bench --help

#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <vector>

#include "bench/replay/run_in_child.hpp"
#include "sim/cli/command_line.hpp"

using namespace partsim;
namespace sg4 = simgrid::s4u;

namespace {

constexpr double kBytes = 1e6, kBandwidth = 1e10, kLatency = 1e-6;

struct Result {
  double transfers = 0;
  double simulated_s = 0;
  double wall_s = 0;
  double peak_rss_mb = 0;
};

Result run_one(bool mailbox, int hosts, int steps) {
  int argc = 2;
  char name[] = "comm_modes_bench", log[] = "--log=root.thres:warning";
  char* argv[] = {name, log, nullptr};
  sg4::Engine engine(&argc, argv);
  auto* zone = sg4::create_full_zone("ring");
  std::vector<sg4::Host*> host(static_cast<std::size_t>(hosts));
  for (int i = 0; i < hosts; ++i) host[static_cast<std::size_t>(i)] = zone->create_host("h" + std::to_string(i), 1e12);
  const auto next = [hosts](int i) { return (i + 1) % hosts; };
  for (int i = 0; i < hosts; ++i) {
    auto* link = zone->create_link("l" + std::to_string(i), kBandwidth)->set_latency(kLatency)->seal();
    zone->add_route(host[static_cast<std::size_t>(i)]->get_netpoint(), host[static_cast<std::size_t>(next(i))]->get_netpoint(),
                    nullptr, nullptr, {sg4::LinkInRoute(link)}, false);
  }
  zone->seal();

  Result r;
  std::vector<int> left(static_cast<std::size_t>(hosts), steps);
  std::unordered_map<const sg4::Activity*, std::pair<int, sg4::CommPtr>> running;  // sendto: held until done
  std::vector<sg4::CommPtr> finished;  // released in the next callback, once SimGrid is done with it
  static double payload = 0;           // mailbox: what is sent (only its address travels)
  const auto t0 = std::chrono::steady_clock::now();
  if (!mailbox) {
    const auto start = [&](int i) {
      auto comm = sg4::Comm::sendto_init(host[static_cast<std::size_t>(i)], host[static_cast<std::size_t>(next(i))]);
      comm->set_payload_size(static_cast<std::uint64_t>(kBytes));
      running[comm.get()] = {i, comm};
      comm->start();
    };
    sg4::Activity::on_completion_cb([&](sg4::Activity const& activity) {
      finished.clear();
      auto it = running.find(&activity);
      if (it == running.end()) return;
      const int i = it->second.first;
      finished.push_back(std::move(it->second.second));
      running.erase(it);
      ++r.transfers;
      if (--left[static_cast<std::size_t>(i)] > 0) start(i);
    });
    for (int i = 0; i < hosts; ++i) start(i);
  } else {
    for (int i = 0; i < hosts; ++i)
      sg4::Actor::create("a" + std::to_string(i), host[static_cast<std::size_t>(i)], [&r, &next, i, steps] {
        sg4::Mailbox* out = sg4::Mailbox::by_name("m" + std::to_string(next(i)));
        sg4::Mailbox* in = sg4::Mailbox::by_name("m" + std::to_string(i));
        for (int k = 0; k < steps; ++k) {
          double* received = nullptr;
          auto send = out->put_async(&payload, static_cast<std::uint64_t>(kBytes));
          auto receive = in->get_async<double>(&received);
          send->wait();
          receive->wait();
          ++r.transfers;
        }
      });
  }
  engine.run();
  finished.clear();
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.simulated_s = sg4::Engine::get_clock();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  r.peak_rss_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;  // KiB on Linux
  return r;
}

int body(int argc, char** argv) {
  std::vector<int> host_counts{256, 4096};
  double transfers = 614400;  // about the 4,096-chip bert_large iteration's comms (docs/model.md)
  CLI::App app("comm_modes_bench: SimGrid 3.32's wall time per transfer with H transfers in flight, actor-free "
               "sendto comms (the replay's) against per-host actors with mailboxes",
               "comm_modes_bench");
  app.add_option("--hosts", host_counts, "Hosts on the ring, i.e. transfers in flight (default 256 4096)")
      ->check(CLI::Range(2, 1 << 20));
  app.add_option("--transfers", transfers, "Transfers in all per run (default 614400)")->check(CLI::Range(1.0, 1e9));
  cli::parse(app, argc, argv);
  std::printf("%-8s %6s %10s %14s %9s %14s %9s\n", "mode", "hosts", "transfers", "simulated_s", "wall_s",
              "us/transfer", "peak_MB");
  int failures = 0;
  for (int hosts : host_counts) {
    const int steps = std::max(1, static_cast<int>(transfers / hosts));
    double simulated[2] = {0, 0};
    for (bool mailbox : {false, true}) {
      bool ok = false;
      const Result r = bench::run_in_child<Result>([&] { return run_one(mailbox, hosts, steps); }, ok);
      if (!ok) {
        std::printf("%-8s %6d failed\n", mailbox ? "mailbox" : "sendto", hosts);
        ++failures;
        continue;
      }
      simulated[mailbox] = r.simulated_s;
      std::printf("%-8s %6d %10.0f %14.9e %9.3f %14.2f %9.1f\n", mailbox ? "mailbox" : "sendto", hosts, r.transfers,
                  r.simulated_s, r.wall_s, 1e6 * r.wall_s / r.transfers, r.peak_rss_mb);
    }
    if (std::abs(simulated[0] - simulated[1]) > 1e-9 * simulated[0]) ++failures;  // the same traffic, the same time
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return cli::run_main("comm_modes_bench", body, argc, argv); }
