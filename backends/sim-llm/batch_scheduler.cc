// sim-llm's scheduling modes (see batch_scheduler.h).
#include "batch_scheduler.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>

namespace triton_studio::sim_llm {

namespace {
constexpr double kNever = std::numeric_limits<double>::infinity();
}

Scheduling ParseScheduling(const std::string& name) {
  for (Scheduling mode : {Scheduling::kNone, Scheduling::kStatic, Scheduling::kDynamic, Scheduling::kInflight}) {
    if (name == SchedulingName(mode)) return mode;
  }
  throw std::invalid_argument("scheduling '" + name + "' is not one of none, static, dynamic, inflight");
}

const char* SchedulingName(Scheduling mode) {
  switch (mode) {
    case Scheduling::kNone: return "none";
    case Scheduling::kStatic: return "static";
    case Scheduling::kDynamic: return "dynamic";
    case Scheduling::kInflight: return "inflight";
  }
  return "?";
}

double CostModel::IterationUs(int64_t prefill_tokens, int64_t rows, bool decodes) const {
  double us = prefill_us_per_token * static_cast<double>(prefill_tokens);
  if (decodes) us += decode_us_per_step * (1.0 + batch_cost_factor * static_cast<double>(std::max<int64_t>(rows, 1) - 1));
  return us;
}

BatchScheduler::BatchScheduler(Scheduling mode, CostModel cost, BatchLimits limits)
    : mode_(mode), cost_(cost), limits_(limits) {
  if (limits_.max_batch < 1) throw std::invalid_argument("max_batch must be at least 1");
  if (mode_ == Scheduling::kNone) limits_.max_batch = 1;
}

void BatchScheduler::Add(const Job& job) { queue_.push_back(job); }

bool BatchScheduler::Remove(uint64_t id) {
  const auto queued = std::find_if(queue_.begin(), queue_.end(), [id](const Job& j) { return j.id == id; });
  if (queued != queue_.end()) {
    queue_.erase(queued);
    return true;
  }
  const auto row = std::find_if(running_.begin(), running_.end(), [id](const Row& r) { return r.job.id == id; });
  if (row == running_.end()) return false;
  running_.erase(row);
  return true;
}

std::optional<Iteration> BatchScheduler::Next(double now_us, double* wake_us) {
  *wake_us = kNever;
  if (mode_ == Scheduling::kInflight || !running_.empty()) {
    if (mode_ == Scheduling::kInflight) {
      while (!queue_.empty() && static_cast<int64_t>(running_.size()) < limits_.max_batch) {
        running_.push_back(Row{queue_.front()});
        queue_.pop_front();
      }
    }
    if (running_.empty()) return std::nullopt;
    return Step();
  }
  if (queue_.empty()) return std::nullopt;
  // A run-to-completion batch starts: at once (none), when full or after a wait (static, dynamic).
  const double wait = mode_ == Scheduling::kStatic    ? limits_.static_timeout_us
                      : mode_ == Scheduling::kDynamic ? limits_.max_queue_delay_us
                                                      : 0;
  const bool full = static_cast<int64_t>(queue_.size()) >= limits_.max_batch;
  if (!full && now_us < queue_.front().arrival_us + wait) {
    *wake_us = queue_.front().arrival_us + wait;
    return std::nullopt;
  }
  while (!queue_.empty() && static_cast<int64_t>(running_.size()) < limits_.max_batch) {
    running_.push_back(Row{queue_.front()});
    queue_.pop_front();
  }
  return Step();
}

Iteration BatchScheduler::Step() {
  Iteration it;
  int64_t prefill_tokens = 0;
  for (Row& row : running_) {
    if (!row.prefilled) {
      row.prefilled = true;
      prefill_tokens += row.job.prompt_tokens;
      it.joined.push_back(row.job.id);
    }
    if (row.generated < row.job.output_tokens) {
      ++row.generated;
      it.emitted.push_back(row.job.id);
    }
  }
  it.rows = static_cast<int64_t>(running_.size());
  it.cost_us = cost_.IterationUs(prefill_tokens, it.rows, !it.emitted.empty());
  const auto done = [](const Row& r) { return r.generated >= r.job.output_tokens; };
  if (mode_ == Scheduling::kInflight) {
    for (const Row& row : running_) {
      if (done(row)) it.finished.push_back(row.job.id);
    }
    running_.erase(std::remove_if(running_.begin(), running_.end(), done), running_.end());
  } else if (std::all_of(running_.begin(), running_.end(), done)) {
    for (const Row& row : running_) it.finished.push_back(row.job.id);
    running_.clear();
  }
  return it;
}

std::map<uint64_t, double> Simulate(Scheduling mode, const CostModel& cost, const BatchLimits& limits,
                                    std::vector<Job> jobs) {
  std::stable_sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.arrival_us < b.arrival_us; });
  BatchScheduler scheduler(mode, cost, limits);
  std::map<uint64_t, double> finish;
  size_t next = 0;
  double now = 0;
  for (;;) {
    while (next < jobs.size() && jobs[next].arrival_us <= now) scheduler.Add(jobs[next++]);
    double wake = kNever;
    if (auto it = scheduler.Next(now, &wake)) {
      now += it->cost_us;
      for (uint64_t id : it->finished) finish[id] = now;
      continue;
    }
    const double arrival = next < jobs.size() ? jobs[next].arrival_us : kNever;
    if (wake == kNever && arrival == kNever) return finish;
    now = std::min(wake, arrival);
  }
}

SchedulerLoop::SchedulerLoop(BatchScheduler scheduler, Handler handler)
    : scheduler_(std::move(scheduler)), handler_(std::move(handler)), thread_([this] { Run(); }) {}

SchedulerLoop::~SchedulerLoop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

double SchedulerLoop::NowUs() const {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void SchedulerLoop::Add(Job job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job.arrival_us = NowUs();
    scheduler_.Add(job);
  }
  wake_.notify_all();
}

void SchedulerLoop::Remove(uint64_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  scheduler_.Remove(id);
}

void SchedulerLoop::Run() {
  using Clock = std::chrono::steady_clock;
  Clock::time_point model_clock = Clock::now();  // when the last iteration ended, as the model sees it
  bool busy = false;                              // the last iteration was followed at once by this one
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    double wake = kNever;
    std::optional<Iteration> it = scheduler_.Next(NowUs(), &wake);
    if (!it) {
      busy = false;
      if (wake == kNever) {
        wake_.wait(lock);
      } else {
        wake_.wait_until(lock, Clock::time_point(std::chrono::duration_cast<Clock::duration>(
                                   std::chrono::duration<double, std::micro>(wake))));
      }
      continue;
    }
    lock.unlock();
    // An idle model starts now; a busy one goes on from where its last iteration ended, so a
    // late wake-up shortens the next wait instead of slowing the model down.
    const Clock::time_point start = busy ? model_clock : Clock::now();
    busy = true;
    model_clock = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::micro>(it->cost_us));
    std::this_thread::sleep_until(model_clock);
    const auto ns = [](Clock::time_point t) {
      return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count());
    };
    handler_(*it, ns(start), ns(Clock::now()));
    lock.lock();
  }
}

}  // namespace triton_studio::sim_llm
