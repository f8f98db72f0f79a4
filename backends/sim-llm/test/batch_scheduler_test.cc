// sim-llm's scheduling modes in virtual time: who runs with whom, when each request is answered,
// and what the cost model charges (batch_scheduler.h is the specification).
#include "../batch_scheduler.h"

#include <gtest/gtest.h>

#include <random>

namespace triton_studio::sim_llm {
namespace {

// Round numbers: prefill 10 µs/token, a step 100 µs + 10% per extra row.
const CostModel kCost{10, 100, 0.1};

Job At(uint64_t id, double arrival_us, int64_t output_tokens, int64_t prompt_tokens = 5) {
  return Job{id, prompt_tokens, output_tokens, arrival_us};
}

TEST(CostModel, PrefillOfJoinersPlusOneStepOverAllRows) {
  EXPECT_DOUBLE_EQ(kCost.IterationUs(0, 1, true), 100);
  EXPECT_DOUBLE_EQ(kCost.IterationUs(20, 4, true), 200 + 130);
  EXPECT_DOUBLE_EQ(kCost.IterationUs(20, 4, false), 200);  // nothing left to generate: prefill only
}

TEST(Scheduling, NamesRoundTripAndUnknownNamesListTheChoices) {
  for (const char* name : {"none", "static", "dynamic", "inflight"}) EXPECT_STREQ(SchedulingName(ParseScheduling(name)), name);
  try {
    ParseScheduling("continuous");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "scheduling 'continuous' is not one of none, static, dynamic, inflight");
  }
}

TEST(NoBatching, OneRequestAtATimeToItsEnd) {
  const auto finish = Simulate(Scheduling::kNone, kCost, {}, {At(1, 0, 3), At(2, 0, 2)});
  EXPECT_DOUBLE_EQ(finish.at(1), 50 + 3 * 100);
  EXPECT_DOUBLE_EQ(finish.at(2), 350 + 50 + 2 * 100);
}

TEST(StaticBatching, WaitsForAFullBatchOrItsTimeout) {
  BatchLimits limits;
  limits.max_batch = 4;
  limits.static_timeout_us = 1000;
  // Two requests: the batch starts at the timeout, padded rows are not charged (only 2 rows).
  auto finish = Simulate(Scheduling::kStatic, kCost, limits, {At(1, 0, 1), At(2, 0, 3)});
  const double two_rows = 110;
  EXPECT_DOUBLE_EQ(finish.at(2), 1000 + 100 + 3 * two_rows);
  // Everyone in the batch is answered at its end, the short request too.
  EXPECT_DOUBLE_EQ(finish.at(1), finish.at(2));
  // Four requests fill it: it starts at once.
  finish = Simulate(Scheduling::kStatic, kCost, limits, {At(1, 0, 1), At(2, 0, 1), At(3, 0, 1), At(4, 0, 1)});
  EXPECT_DOUBLE_EQ(finish.at(4), 200 + 130);
}

TEST(DynamicBatching, StartsWithWhatIsQueuedAndLateArrivalsWaitForTheWholeBatch) {
  BatchLimits limits;
  limits.max_batch = 4;
  const auto finish = Simulate(Scheduling::kDynamic, kCost, limits, {At(1, 0, 10), At(2, 150, 1)});
  EXPECT_DOUBLE_EQ(finish.at(1), 50 + 10 * 100);
  // Request 2 arrived during request 1's batch: it starts after it, alone.
  EXPECT_DOUBLE_EQ(finish.at(2), finish.at(1) + 50 + 100);
}

TEST(DynamicBatching, RowsThatFinishedStayAsPaddingUntilTheBatchEnds) {
  BatchScheduler s(Scheduling::kDynamic, kCost, {});
  s.Add(At(1, 0, 1));
  s.Add(At(2, 0, 3));
  double wake = 0;
  for (int step = 0; step < 3; ++step) {
    const auto it = s.Next(0, &wake);
    ASSERT_TRUE(it);
    EXPECT_EQ(it->rows, 2) << "step " << step;
    EXPECT_EQ(it->finished.size(), step == 2 ? 2u : 0u);
  }
  EXPECT_TRUE(s.empty());
}

TEST(InflightBatching, NewRequestsJoinAtTheNextIterationAndLeaveWhenDone) {
  BatchLimits limits;
  limits.max_batch = 4;
  const auto finish = Simulate(Scheduling::kInflight, kCost, limits, {At(1, 0, 10), At(2, 150, 1)});
  // Iterations: [0,150) request 1 alone (prefill + step), [150,310) request 2 joins (prefill 50 +
  // a two-row step 110) and leaves at once, then request 1 goes on alone.
  EXPECT_DOUBLE_EQ(finish.at(2), 150 + 50 + 110);
  EXPECT_DOUBLE_EQ(finish.at(1), 310 + 8 * 100);
}

TEST(InflightBatching, NoMoreThanMaxBatchRowsRunAtOnce) {
  BatchScheduler s(Scheduling::kInflight, kCost, BatchLimits{2, 0, 0});
  for (uint64_t id = 1; id <= 3; ++id) s.Add(At(id, 0, 2));
  double wake = 0;
  auto it = s.Next(0, &wake);
  EXPECT_EQ(it->rows, 2);
  EXPECT_EQ(it->joined, (std::vector<uint64_t>{1, 2}));
  it = s.Next(0, &wake);
  EXPECT_EQ(it->finished, (std::vector<uint64_t>{1, 2}));
  it = s.Next(0, &wake);
  EXPECT_EQ(it->joined, (std::vector<uint64_t>{3}));
}

TEST(Cancellation, ARemovedRequestLeavesTheQueueOrTheBatch) {
  BatchScheduler s(Scheduling::kInflight, kCost, {});
  s.Add(At(1, 0, 5));
  double wake = 0;
  ASSERT_TRUE(s.Next(0, &wake));
  s.Add(At(2, 0, 5));
  EXPECT_TRUE(s.Remove(1));
  EXPECT_TRUE(s.Remove(2));
  EXPECT_FALSE(s.Remove(3));
  EXPECT_FALSE(s.Next(0, &wake));
  EXPECT_TRUE(s.empty());
}

// The batching study's claim on its workload (requested tokens 1–200, Poisson arrivals past
// saturation): in-flight serves the most requests per second, the lowest latency per output
// token, and the shortest requests fastest.
TEST(Study, InflightWinsOnThroughputPerTokenLatencyAndShortRequests) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int64_t> tokens(1, 200);
  std::exponential_distribution<double> gap(1.0 / 2000);  // 500 requests/s offered: past saturation
  std::vector<Job> jobs;
  double t = 0;
  for (uint64_t id = 0; id < 400; ++id) jobs.push_back(At(id, t += gap(rng), tokens(rng), 50));
  const CostModel cost{20, 500, 0.05};
  BatchLimits limits;
  limits.max_batch = 16;
  struct Outcome {
    double throughput, per_token_us, short_latency_us;
  };
  const auto run = [&](Scheduling mode) {
    const auto finish = Simulate(mode, cost, limits, jobs);
    double last = 0, per_token = 0, short_sum = 0;
    int shorts = 0;
    for (const Job& j : jobs) {
      const double latency = finish.at(j.id) - j.arrival_us;
      last = std::max(last, finish.at(j.id));
      per_token += latency / static_cast<double>(j.output_tokens);
      if (j.output_tokens <= 20) short_sum += latency, ++shorts;
    }
    return Outcome{static_cast<double>(jobs.size()) / last, per_token / static_cast<double>(jobs.size()),
                   short_sum / shorts};
  };
  const Outcome none = run(Scheduling::kNone), fixed = run(Scheduling::kStatic), dynamic = run(Scheduling::kDynamic),
                inflight = run(Scheduling::kInflight);
  for (const Outcome& other : {none, fixed, dynamic}) {
    EXPECT_GT(inflight.throughput, other.throughput);
    EXPECT_LT(inflight.per_token_us, other.per_token_us);
    EXPECT_LT(inflight.short_latency_us, other.short_latency_us);
  }
  EXPECT_GT(dynamic.throughput, none.throughput);
}

}  // namespace
}  // namespace triton_studio::sim_llm
