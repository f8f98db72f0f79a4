// The epoll loop that sends and times the requests (see perf_driver.cc's header for the protocol).
#pragma once

#include <string>
#include <vector>

#include "driver_input.h"

namespace ts_perf {

// Runs the load to its end (or stop/EOF on stdin); `stdinRest` holds control lines already read
// past the schedule. Returns the process's exit code.
int runDriver(Options options, std::vector<std::string> inputs, Load load, std::string stdinRest);

}  // namespace ts_perf
