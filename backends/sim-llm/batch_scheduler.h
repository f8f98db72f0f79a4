// sim-llm's scheduling modes (the batching study, issue 10 item 8): how requests are grouped
// into batches and what each decode iteration costs. Server-free, so the modes are unit-tested
// with virtual time (Simulate) and driven in the server by SchedulerLoop on the wall clock.
//
//   none      one request at a time, run to its end.
//   static    a fixed batch of max_batch: it starts when full, or when its oldest request has
//             waited static_timeout_us; it runs until its longest request ends, finished rows
//             staying in the batch as padding, and every request of it is answered at its end.
//   dynamic   as static, but the batch starts as soon as the model is free with whatever has
//             queued (up to max_batch) after waiting at most max_queue_delay_us (Triton's
//             dynamic batcher in front of a run-to-completion model, e.g. FasterTransformer).
//   inflight  iteration-level batching (Orca): queued requests join the running batch at the
//             next iteration (up to max_batch rows), and a request leaves, answered, at the
//             iteration that generates its last token.
//
// Cost of one iteration: prefill_us_per_token × (prompt tokens of the requests joining at it)
// + decode_us_per_step × (1 + batch_cost_factor × (rows − 1)), rows being the batch's rows
// (padding included for none/static/dynamic, the running requests for inflight). Every request
// gets one token per iteration from the one it joins at.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace triton_studio::sim_llm {

enum class Scheduling { kNone, kStatic, kDynamic, kInflight };

// "none" | "static" | "dynamic" | "inflight"; anything else throws std::invalid_argument naming them.
Scheduling ParseScheduling(const std::string& name);
const char* SchedulingName(Scheduling mode);

struct CostModel {
  double prefill_us_per_token = 20;
  double decode_us_per_step = 500;
  double batch_cost_factor = 0.05;

  // One iteration: the joining prompts' prefill, then (when any row generates) one decode step.
  double IterationUs(int64_t prefill_tokens, int64_t rows, bool decodes) const;
};

struct BatchLimits {
  int64_t max_batch = 8;
  double static_timeout_us = 500000;
  double max_queue_delay_us = 0;  // Triton's dynamic batcher's default
};

struct Job {
  uint64_t id = 0;
  int64_t prompt_tokens = 0;
  int64_t output_tokens = 0;
  double arrival_us = 0;
};

// What one iteration did.
struct Iteration {
  double cost_us = 0;
  int64_t rows = 0;                // rows the decode step computed (padding included)
  std::vector<uint64_t> joined;    // prefilled at this iteration
  std::vector<uint64_t> emitted;   // got one more token
  std::vector<uint64_t> finished;  // answered at the end of this iteration
};

class BatchScheduler {
 public:
  BatchScheduler(Scheduling mode, CostModel cost, BatchLimits limits);

  // A request arrives (in arrival order).
  void Add(const Job& job);
  // A cancelled request leaves the queue or the batch at once; false when unknown.
  bool Remove(uint64_t id);
  // The iteration to run at `now_us`, or none: then nothing can start before `*wake_us`
  // (infinity when nothing is queued or running).
  std::optional<Iteration> Next(double now_us, double* wake_us);

  Scheduling mode() const { return mode_; }
  bool empty() const { return queue_.empty() && running_.empty(); }

 private:
  struct Row {
    Job job;
    int64_t generated = 0;
    bool prefilled = false;
  };
  Iteration Step();

  Scheduling mode_;
  CostModel cost_;
  BatchLimits limits_;
  std::deque<Job> queue_;
  std::vector<Row> running_;
};

// Runs the scheduler over known arrivals in virtual time: each request's finish time (µs).
std::map<uint64_t, double> Simulate(Scheduling mode, const CostModel& cost, const BatchLimits& limits,
                                    std::vector<Job> jobs);

// Drives a BatchScheduler on the wall clock in its own thread: each iteration's handler runs
// once the iteration's cost has elapsed (the model's own clock: a late wake-up shortens the next
// wait, so throughput follows the cost model). The handler runs without the lock held and may
// call Remove.
class SchedulerLoop {
 public:
  using Handler = std::function<void(const Iteration&, uint64_t start_ns, uint64_t end_ns)>;
  SchedulerLoop(BatchScheduler scheduler, Handler handler);
  ~SchedulerLoop();
  SchedulerLoop(const SchedulerLoop&) = delete;
  SchedulerLoop& operator=(const SchedulerLoop&) = delete;

  // Queues a request now (job.arrival_us is set here).
  void Add(Job job);
  void Remove(uint64_t id);

 private:
  void Run();
  double NowUs() const;

  BatchScheduler scheduler_;
  Handler handler_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace triton_studio::sim_llm
