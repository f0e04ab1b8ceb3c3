// spawn_time: whole-process wall time of a command, from posix_spawn to the
// end of waitpid, with stdout sent to /dev/null. Prints the median and the
// 10th / 90th percentiles over REPS runs (after one untimed warm-up run).
//
// Why not `perf stat -r`: perf forks itself (a large process), sets up its
// counters and reads them back around each run, which adds ~0.4 ms to every
// figure on this VM (/bin/true: 2.1 ms under perf stat, 1.75 ms here). The
// anchors of the published accounting scenarios (bench/scenarios.sh) are in-process times, so the
// least inflated whole-process figure is the fair one; bench/scenarios.sh
// prints perf's CPU time beside it.
//
// Usage: spawn_time REPS command [args...]
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

extern char** environ;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: spawn_time REPS command [args...]\n");
    return 2;
  }
  const int reps = std::atoi(argv[1]);
  if (reps < 1) {
    std::fprintf(stderr, "spawn_time: REPS must be a positive integer, got '%s'\n", argv[1]);
    return 2;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  std::vector<double> ms;
  for (int i = 0; i <= reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    pid_t pid = 0;
    if (posix_spawnp(&pid, argv[2], &actions, nullptr, argv + 2, environ) != 0) {
      std::perror("spawn_time: posix_spawnp");
      return 1;
    }
    int status = 0;
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::fprintf(stderr, "spawn_time: '%s' failed\n", argv[2]);
      return 1;
    }
    const auto t1 = std::chrono::steady_clock::now();
    if (i > 0) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  const auto at = [&](double q) { return ms[static_cast<std::size_t>(q * (ms.size() - 1) + 0.5)]; };
  std::printf("%.3f %.3f %.3f\n", at(0.5), at(0.1), at(0.9));
  return 0;
}
