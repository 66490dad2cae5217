// The Chrome-trace timeline of a replay (sim/report/timeline.hpp), from Programs and Evaluations
// built by hand (the TaskTiming values are chosen here), every number worked out in the comments.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "sim/common/yaml_reader.hpp"
#include "sim/program/platform_binding.hpp"
#include "sim/report/diagnosis.hpp"
#include "sim/report/gzip_stream.hpp"
#include "sim/report/link_usage.hpp"
#include "sim/report/timeline.hpp"
#include "topology/system_parser.hpp"
#include "tests/report_outputs/report_fixtures.hpp"

using namespace partsim;
using namespace partsim::test::report_outputs;  // also Endpoint, Evaluation, Program, Pass

// ---- timeline ---------------------------------------------------------------------------------

namespace {

// conv1/fwd on the ring: compute on d0, two transfers sharing link d1->d2, a join, a memory delay,
// compute on d2.
struct TimelineCase {
  topology::TopologyGraph g{spec_of(kRing4)};
  Program p;
  Evaluation e;
  TimelineCase() {
    const int l = p.add_layer("conv1");
    const int c0 = p.add_compute(l, Pass::fwd, "compute", dev(0), 1e-3, {});              // 0
    const int t0 = p.add_transfer(l, Pass::fwd, "relayout", dev(0), dev(2), 2e6, {c0});  // 1: 2 links
    const int t1 = p.add_transfer(l, Pass::fwd, "halo", dev(1), dev(2), 1e6, {});        // 2: 1 link
    const int j = p.add_delay(l, Pass::fwd, "join", 0.0, {t0, t1}, Endpoint::nowhere()); // 3: skipped
    const int d = p.add_delay(l, Pass::fwd, "weights", 0.2e-3, {j}, dev(2));             // 4: on d2
    p.add_compute(l, Pass::fwd, "compute", dev(2), 1e-3, {d});                            // 5
    // ms: c0 [0,1), t0 [1,1.3), t1 [1.1,1.4) (overlaps t0 on d1->d2), join at 1.4, delay [1.4,1.6),
    // compute [1.6, 2.6).
    e = timed({{0, 1}, {1, 1.3}, {1.1, 1.4}, {1.4, 1.4}, {1.4, 1.6}, {1.6, 2.6}});
  }
  nlohmann::json trace(size_t max_events, report::TimelineStats* stats = nullptr) const {
    report::TimelineOptions options;
    options.max_events = max_events;
    return trace(options, stats);
  }
  nlohmann::json trace(const report::TimelineOptions& options, report::TimelineStats* stats = nullptr) const {
    std::ostringstream out;
    const auto s = report::write_timeline(out, p, e, g, options);
    if (stats) *stats = s;
    return nlohmann::json::parse(out.str());
  }
};

struct Parsed {
  std::vector<nlohmann::json> events;                 // complete events
  std::map<int, std::string> process;                 // pid -> name
  std::map<std::pair<int, int>, std::string> thread;  // (pid, tid) -> name
  std::string track(const nlohmann::json& ev) const {
    return process.at(ev["pid"].get<int>()) + "/" + thread.at({ev["pid"].get<int>(), ev["tid"].get<int>()});
  }
};

Parsed parse(const nlohmann::json& trace) {
  Parsed p;
  for (const auto& ev : trace["traceEvents"]) {
    if (ev["ph"] == "X") p.events.push_back(ev);
    else if (ev["name"] == "process_name") p.process[ev["pid"].get<int>()] = ev["args"]["name"];
    else if (ev["name"] == "thread_name") p.thread[{ev["pid"].get<int>(), ev["tid"].get<int>()}] = ev["args"]["name"];
  }
  return p;
}

}  // namespace

TEST(Timeline, EventsTracksNamesAndMicroseconds) {
  const TimelineCase c;
  report::TimelineStats stats;
  const Parsed t = parse(c.trace(1000, &stats));
  // Device events: 2 compute + 1 delay (the join is left out) + 2 transfers on their senders = 5.
  // Link segments: d0->d1 carries relayout alone [1, 1.3); d1->d2 carries relayout [1, 1.1), relayout
  // and halo [1.1, 1.3) (named after relayout, which started first), halo alone [1.3, 1.4) = 4.
  ASSERT_EQ(t.events.size(), 9u);
  EXPECT_EQ(stats.events, 9u);
  EXPECT_EQ(stats.link_events, 4u);
  EXPECT_EQ(stats.link_events_dropped, 0u);
  std::multiset<std::string> where;
  for (const auto& ev : t.events) where.insert(t.track(ev) + " " + ev["name"].get<std::string>());
  const std::multiset<std::string> expected{
      "d0/compute conv1/fwd compute",
      "d0/send conv1/fwd relayout",
      "d1/send conv1/fwd halo",
      "d2/compute conv1/fwd compute",
      "d2/delays conv1/fwd weights",  // the join's predecessors both arrive on d2
      "links/d0->d1 (+x) conv1/fwd relayout",
      "links/d1->d2 (+x) conv1/fwd relayout",
      "links/d1->d2 (+x) conv1/fwd relayout",
      "links/d1->d2 (+x) conv1/fwd halo",
  };
  EXPECT_EQ(where, expected);
  EXPECT_EQ(t.thread.size(), 7u);  // d0 compute, send; d1 send; d2 compute, delays; 2 links
  for (const auto& ev : t.events) {
    if (ev["name"] != "conv1/fwd relayout" || ev["cat"] != "transfer") continue;
    // [1 ms, 1.3 ms) = ts 1000 us, dur 300 us; args bytes, src, dst.
    EXPECT_NEAR(ev["ts"].get<double>(), 1000.0, 1e-3);
    EXPECT_NEAR(ev["dur"].get<double>(), 300.0, 1e-3);
    EXPECT_DOUBLE_EQ(ev["args"]["bytes"].get<double>(), 2e6);
    EXPECT_EQ(ev["args"]["src"], "d0");
    EXPECT_EQ(ev["args"]["dst"], "d2");
    EXPECT_EQ(ev["args"]["task"], 1);
  }
  // The shared segment of d1->d2: [1.1, 1.3) ms, 2 flows, 2 MB + 1 MB.
  int shared = 0;
  for (const auto& ev : t.events)
    if (ev["cat"] == "link" && ev["args"]["flows"] == 2) {
      ++shared;
      EXPECT_NEAR(ev["ts"].get<double>(), 1100.0, 1e-3);
      EXPECT_NEAR(ev["dur"].get<double>(), 200.0, 1e-3);
      EXPECT_DOUBLE_EQ(ev["args"]["bytes"].get<double>(), 3e6);
      EXPECT_EQ(ev["args"]["task"], 1);
    }
  EXPECT_EQ(shared, 1);
  for (const auto& ev : t.events)
    if (ev["name"] == "conv1/fwd weights") {
      EXPECT_NEAR(ev["ts"].get<double>(), 1400.0, 1e-3);
      EXPECT_NEAR(ev["dur"].get<double>(), 200.0, 1e-3);
    }
  EXPECT_EQ(t.process.size(), 4u);  // d0, d1, d2, links (d3 has nothing)
}

TEST(Timeline, CapDropsLinkEventsFirstAndRecordsIt) {
  const TimelineCase c;
  report::TimelineStats stats;
  // 7 events: 5 device events + 2 link segments. Segment starts: 1, 1 (both links), 1.1, 1.3 ms;
  // the third would not fit, so links are shown until the start of the time bin (2.6 ms / 65536 =
  // 0.04 us wide) that holds 1.1 ms: the two starting at 1 ms are kept, 2 dropped.
  auto j = c.trace(7, &stats);
  EXPECT_EQ(parse(j).events.size(), 7u);
  EXPECT_EQ(j["otherData"]["link_events_dropped"], 2);
  EXPECT_LE(j["otherData"]["links_shown_until_us"].get<double>(), 1100.0);
  EXPECT_GT(j["otherData"]["links_shown_until_us"].get<double>(), 1100.0 - 2600.0 / 65536);
  EXPECT_EQ(j["otherData"]["events_dropped"], 0);
  EXPECT_EQ(j["otherData"]["max_events"], 7);
  // 6 events: budget 1, but the two segments at 1 ms tie: neither is kept (never over the cap).
  j = c.trace(6, &stats);
  EXPECT_EQ(parse(j).events.size(), 5u);
  EXPECT_EQ(stats.link_events_dropped, 4u);
  EXPECT_EQ(j["otherData"]["link_events_dropped"], 4);
  // 3 events: no links, and only the first 3 device events in task order (compute, relayout, halo).
  j = c.trace(3, &stats);
  const Parsed t = parse(j);
  ASSERT_EQ(t.events.size(), 3u);
  EXPECT_EQ(stats.other_events_dropped, 2u);
  EXPECT_EQ(j["otherData"]["events_dropped"], 2);
  std::set<int> tasks;
  for (const auto& ev : t.events) tasks.insert(ev["args"]["task"].get<int>());
  EXPECT_EQ(tasks, (std::set<int>{0, 1, 2}));
  // No cap reached: links_shown_until_us is null.
  EXPECT_TRUE(c.trace(100)["otherData"]["links_shown_until_us"].is_null());
}

TEST(Timeline, OverlappingComputeOnOneCoreGoesToLanes) {
  const topology::TopologyGraph g(spec_of(kRing4));
  Program p;
  const int l = p.add_layer("l");
  p.add_compute(l, Pass::fwd, "a", dev(0), 1e-3, {});  // [0, 1)
  p.add_compute(l, Pass::fwd, "b", dev(0), 1e-3, {});  // [0.5, 1.5): overlaps a -> lane 2
  p.add_compute(l, Pass::fwd, "c", dev(0), 1e-3, {});  // [1, 2): a's lane is free again at 1
  std::ostringstream out;
  report::write_timeline(out, p, timed({{0, 1}, {0.5, 1.5}, {1, 2}}), g);
  const Parsed t = parse(nlohmann::json::parse(out.str()));
  std::set<std::string> where;
  for (const auto& ev : t.events) where.insert(t.track(ev) + " " + ev["name"].get<std::string>());
  EXPECT_EQ(where, (std::set<std::string>{"d0/compute l/fwd a", "d0/compute #2 l/fwd b", "d0/compute l/fwd c"}));
}

TEST(Timeline, CoreGranularityThreadsPerCoreAndMemory) {
  const topology::TopologyGraph g(spec_of(kChips2), topology::Granularity::core);
  Program p;
  const int l = p.add_layer("fc");
  const int ld = p.add_transfer(l, Pass::bwd, "load", {0, -1, true}, {0, 1, false}, 4e6, {});  // memory thread
  p.add_compute(l, Pass::bwd, "compute", {0, 1, false}, 1e-3, {ld});                          // core 1
  p.add_compute(l, Pass::bwd, "compute", {0, 0, false}, 1e-3, {});                            // core 0
  const Evaluation e = timed({{0, 0.5}, {0.5, 1.5}, {0, 1}});
  std::ostringstream out;
  report::write_timeline(out, p, e, g);
  const Parsed t = parse(nlohmann::json::parse(out.str()));
  std::set<std::string> device_tracks;
  for (const auto& ev : t.events)
    if (t.process.at(ev["pid"].get<int>()) != "links")
      device_tracks.insert(t.track(ev) + " " + ev["name"].get<std::string>());
  EXPECT_EQ(device_tracks, (std::set<std::string>{"d0/memory fc/bwd load", "d0/core 0 fc/bwd compute",
                                                  "d0/core 1 fc/bwd compute"}));
}

TEST(Timeline, DelaysGoToTheirDeviceOrToProgram) {
  const topology::TopologyGraph g(spec_of(kRing4));
  Program p;
  const int l = p.add_layer("l");
  const int a = p.add_transfer(l, Pass::fwd, "a", dev(0), dev(1), 1e3, {});  // 0: arrives on d1
  const int b = p.add_transfer(l, Pass::fwd, "b", dev(1), dev(2), 1e3, {});  // 1: arrives on d2
  const int j = p.add_delay(l, Pass::fwd, "join", 0.0, {a, b}, Endpoint::nowhere());  // 2: not shown
  p.add_delay(l, Pass::fwd, "after_join", 1e-3, {j}, Endpoint::several_devices());  // 3: -> program/delays
  p.add_delay(l, Pass::fwd, "after_a", 1e-3, {a}, dev(1));                           // 4: -> d1/delays
  p.add_delay(l, Pass::fwd, "fetch", 1e-3, {}, {3, -1, true});                     // 5: at = d3's memory
  // 6: no place stated (only a hand-built Program does that): -> program/delays, not guessed from
  // its predecessor (a arrives on d1)
  p.add_delay(l, Pass::fwd, "unstated", 1e-3, {a});
  const Evaluation e = timed({{0, 0.1}, {0, 0.1}, {0.1, 0.1}, {0.1, 1.1}, {0.1, 1.1}, {0, 1}, {1.1, 2.1}});
  std::ostringstream out;
  report::write_timeline(out, p, e, g);
  const Parsed t = parse(nlohmann::json::parse(out.str()));
  std::set<std::string> delays;
  for (const auto& ev : t.events)
    if (ev["cat"] == "delay") delays.insert(t.track(ev) + " " + ev["name"].get<std::string>());
  EXPECT_EQ(delays, (std::set<std::string>{"program/delays l/fwd after_join", "d1/delays l/fwd after_a",
                                           "d3/memory l/fwd fetch", "program/delays l/fwd unstated"}));
}

// Times in whole nanoseconds (Chrome's ts/dur are microseconds): a sub-ns end is snapped, dur is
// end - start of the snapped times, and lanes follow the snapped times.
TEST(Timeline, TimesSnapToWholeNanosecondsAndLanesFollowThem) {
  const topology::TopologyGraph g(spec_of(kRing4));
  Program p;
  const int l = p.add_layer("l");
  for (const char* name : {"a", "b", "c", "x", "y"}) p.add_compute(l, Pass::fwd, name, dev(0), 1e-6, {});
  for (const char* name : {"p", "q"}) p.add_compute(l, Pass::fwd, name, dev(1), 1e-6, {});
  Evaluation e;
  // d0: a [0, 1000.4 ns), b [1000.4, 2000.6), c [2000.6, 3000): snapped a [0, 1000), b [1000, 2001),
  // c [2001, 3000): ts 0.000, 1.000, 2.001 us; dur 1.000, 1.001, 0.999 us; one lane.
  // x [5000, 6000.6) and y [6000.2, 7000): overlap by 0.4 ns, snapped [5000, 6001) and [6000, 7000)
  // still overlap by 1 ns: y goes to lane #2.
  // d1: p [0, 1000.4) and q [1000.3, 2000) overlap by 0.1 ns, snapped [0, 1000) and [1000, 2000)
  // only touch: one lane.
  for (auto [s, f] : std::vector<std::pair<double, double>>{
           {0, 1000.4}, {1000.4, 2000.6}, {2000.6, 3000}, {5000, 6000.6}, {6000.2, 7000}, {0, 1000.4}, {1000.3, 2000}})
    e.tasks.push_back({s * 1e-9, f * 1e-9});
  e.makespan_s = 7e-6;
  std::ostringstream out;
  report::write_timeline(out, p, e, g);
  const Parsed t = parse(nlohmann::json::parse(out.str()));
  std::map<std::string, std::pair<double, double>> times;  // name -> (ts, dur) in us
  std::map<std::string, std::string> track;
  for (const auto& ev : t.events) {
    times[ev["name"]] = {ev["ts"].get<double>(), ev["dur"].get<double>()};
    track[ev["name"]] = t.track(ev);
  }
  EXPECT_NEAR(times["l/fwd a"].second, 1.000, 1e-9);
  EXPECT_NEAR(times["l/fwd b"].first, 1.000, 1e-9);
  EXPECT_NEAR(times["l/fwd b"].second, 1.001, 1e-9);
  EXPECT_NEAR(times["l/fwd c"].first, 2.001, 1e-9);
  EXPECT_NEAR(times["l/fwd c"].second, 0.999, 1e-9);
  EXPECT_EQ(track["l/fwd a"], "d0/compute");
  EXPECT_EQ(track["l/fwd b"], "d0/compute");
  EXPECT_EQ(track["l/fwd c"], "d0/compute");
  EXPECT_EQ(track["l/fwd x"], "d0/compute");
  EXPECT_EQ(track["l/fwd y"], "d0/compute #2");
  EXPECT_NEAR(times["l/fwd x"].second, 1.001, 1e-9);
  EXPECT_EQ(track["l/fwd p"], "d1/compute");
  EXPECT_EQ(track["l/fwd q"], "d1/compute");
  EXPECT_NEAR(times["l/fwd p"].second, 1.000, 1e-9);
  // As written: three decimals, no more.
  EXPECT_NE(out.str().find("\"ts\":2.001,\"dur\":0.999,"), std::string::npos);
}

// Many tasks at sub-nanosecond times on few tracks, with shared links: after snapping, no two
// events on one thread overlap (what viewers that need perfect nesting require).
TEST(Timeline, NoTwoEventsOnOneThreadOverlapAfterSnapping) {
  const topology::TopologyGraph g(spec_of(kRing4));
  Program p;
  const int l = p.add_layer("l");
  Evaluation e;
  std::uint32_t state = 12345;  // a fixed linear congruential sequence: deterministic
  auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return static_cast<double>(state >> 8) / static_cast<double>(1u << 24);  // [0, 1)
  };
  for (int i = 0; i < 400; ++i) {
    const int d = i % 4;
    const double start = next() * 50e-9, length = next() * 3e-9;  // ns-scale, sub-ns parts
    if (i % 3 == 0) p.add_transfer(l, Pass::fwd, "t", dev(d), dev((d + 2) % 4), 100, {});
    else p.add_compute(l, Pass::fwd, "c", dev(d), length, {});
    e.tasks.push_back({start, start + length});
    e.makespan_s = std::max(e.makespan_s, start + length);
  }
  std::ostringstream out;
  report::write_timeline(out, p, e, g);
  const Parsed t = parse(nlohmann::json::parse(out.str()));
  std::map<std::pair<int, int>, std::vector<std::pair<long long, long long>>> by_thread;  // ns
  for (const auto& ev : t.events) {
    const double ts_ns = ev["ts"].get<double>() * 1e3, dur_ns = ev["dur"].get<double>() * 1e3;
    ASSERT_NEAR(ts_ns, std::round(ts_ns), 1e-6) << ev.dump();  // whole nanoseconds
    ASSERT_NEAR(dur_ns, std::round(dur_ns), 1e-6) << ev.dump();
    const long long start = std::llround(ts_ns);
    by_thread[{ev["pid"].get<int>(), ev["tid"].get<int>()}].push_back({start, start + std::llround(dur_ns)});
  }
  size_t checked = 0;
  for (auto& [thread, events] : by_thread) {
    std::sort(events.begin(), events.end());
    for (size_t k = 1; k < events.size(); ++k, ++checked)
      EXPECT_LE(events[k - 1].second, events[k].first) << "thread " << thread.first << "/" << thread.second;
  }
  EXPECT_GT(checked, 300u);  // the property was tested on many neighbours
}

TEST(Timeline, FiltersLayersDevicesAndLinkKinds) {
  const TimelineCase c;
  report::TimelineOptions options;
  // d2 only: its compute and delay (2 device events); links with an end on d2: d1->d2's three
  // segments (relayout alone, both, halo alone); not d0->d1. The transfers' sender tracks are on
  // d0 and d1: left out.
  options.devices = {"d2"};
  Parsed t = parse(c.trace(options));
  std::multiset<std::string> where;
  for (const auto& ev : t.events) where.insert(t.track(ev) + " " + ev["name"].get<std::string>());
  EXPECT_EQ(where, (std::multiset<std::string>{"d2/compute conv1/fwd compute", "d2/delays conv1/fwd weights",
                                               "links/d1->d2 (+x) conv1/fwd relayout",
                                               "links/d1->d2 (+x) conv1/fwd relayout",
                                               "links/d1->d2 (+x) conv1/fwd halo"}));
  // The same device by index; no link tracks: 2 events.
  options.devices = {"2"};
  options.link_kinds = {"none"};
  EXPECT_EQ(parse(c.trace(options)).events.size(), 2u);
  // on_chip links only (the ring has none): the 5 device events.
  options = {};
  options.link_kinds = {"on_chip"};
  EXPECT_EQ(parse(c.trace(options)).events.size(), 5u);
  // Unknown names are input errors naming the allowed values.
  options = {};
  options.layers = {"conv9"};
  EXPECT_THROW(c.trace(options), InputError);
  options.layers = {};
  options.devices = {"d7"};
  EXPECT_THROW(c.trace(options), InputError);
  options.devices = {"4"};
  EXPECT_THROW(c.trace(options), InputError);
  options.devices = {};
  options.link_kinds = {"pcie"};
  EXPECT_THROW(report::check_timeline_options(options, c.p, c.g), InputError);
}

TEST(Timeline, LayerFilterKeepsOnlyThatLayersTasksAndTraffic) {
  const topology::TopologyGraph g(spec_of(kRing4));
  Program p;
  const int a = p.add_layer("a");
  const int b = p.add_layer("b");
  p.add_compute(a, Pass::fwd, "compute", dev(0), 1e-3, {});                   // [0, 1) ms
  p.add_transfer(a, Pass::fwd, "send", dev(0), dev(1), 1e6, {});             // [1, 1.1): d0->d1
  p.add_compute(b, Pass::fwd, "compute", dev(1), 1e-3, {});                   // [1.1, 2.1)
  p.add_transfer(b, Pass::bwd, "send", dev(1), dev(2), 1e6, {});             // [2.1, 2.2): d1->d2
  const Evaluation e = timed({{0, 1}, {1, 1.1}, {1.1, 2.1}, {2.1, 2.2}});
  report::TimelineOptions options;
  options.layers = {"b"};
  std::ostringstream out;
  const report::TimelineStats stats = report::write_timeline(out, p, e, g, options);
  const Parsed t = parse(nlohmann::json::parse(out.str()));
  std::multiset<std::string> where;
  for (const auto& ev : t.events) where.insert(t.track(ev) + " " + ev["name"].get<std::string>());
  // b's compute on d1, its transfer on d1's send track and its one link segment on d1->d2.
  EXPECT_EQ(where, (std::multiset<std::string>{"d1/compute b/fwd compute", "d1/send b/bwd send",
                                               "links/d1->d2 (+x) b/bwd send"}));
  EXPECT_EQ(stats.events, 3u);
}

TEST(Timeline, CapNoteSaysWhatWasLeftOut) {
  const TimelineCase c;
  report::TimelineStats stats;
  c.trace(7, &stats);  // 2 link segments dropped, shown until the bin holding 1.1 ms (see above)
  const std::string note = report::cap_note(stats, 7);
  EXPECT_EQ(note.rfind("timeline capped at 7 events: 2 link segments starting from 1099.", 0), 0u) << note;
  EXPECT_NE(note.find("left out"), std::string::npos);
  // No link segment and 2 device events: links are cut at the bin holding the first segment start,
  // 1 ms: bin floor(1 / 2.6 x 65536) = 25206, which starts at 25206 x 2600 us / 65536 = 999.994 us.
  c.trace(3, &stats);
  EXPECT_NE(report::cap_note(stats, 3).find("4 link segments starting from 999.994 us on and 2 device events"),
            std::string::npos)
      << report::cap_note(stats, 3);
  c.trace(100, &stats);
  EXPECT_EQ(report::cap_note(stats, 100), "");
}

// .json.gz: the same bytes, gzip-compressed (inflated back with zlib here).
TEST(Timeline, GzipStreamInflatesToThePlainTrace) {
  const TimelineCase c;
  std::ostringstream plain, compressed;
  report::write_timeline(plain, c.p, c.e, c.g);
  report::GzipOstream gzip(compressed);
  report::write_timeline(gzip.stream(), c.p, c.e, c.g);
  gzip.finish();
  const std::string packed = compressed.str();
  ASSERT_GT(packed.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(packed[0]), 0x1f);  // gzip magic (RFC 1952)
  EXPECT_EQ(static_cast<unsigned char>(packed[1]), 0x8b);
  z_stream z{};
  ASSERT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
  std::string unpacked(plain.str().size() + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(packed.data()));
  z.avail_in = static_cast<uInt>(packed.size());
  z.next_out = reinterpret_cast<Bytef*>(unpacked.data());
  z.avail_out = static_cast<uInt>(unpacked.size());
  EXPECT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
  unpacked.resize(z.total_out);
  inflateEnd(&z);
  EXPECT_EQ(unpacked, plain.str());
  EXPECT_TRUE(report::is_gzip_path("trace.json.gz"));
  EXPECT_FALSE(report::is_gzip_path("trace.json"));
}
