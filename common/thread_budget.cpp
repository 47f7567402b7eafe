#include "common/thread_budget.hpp"

#include <omp.h>
#include <pthread.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/error.hpp"

namespace gatemap {

namespace {

// The probe's threads only wait: they must not allocate, since a thread's first malloc or
// free gives it a malloc arena of its own, and 3 x -t arenas made here would spread the
// run's memory over heaps it then faults in again (sys time +1.2 s per 1 M pairs on the
// GPU machine when std::thread's state was freed on them).
struct Gate {
  pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t open = PTHREAD_COND_INITIALIZER;
  bool released = false;
};

void* wait_at(void* arg) {
  Gate& gate = *static_cast<Gate*>(arg);
  pthread_mutex_lock(&gate.mutex);
  while (!gate.released) pthread_cond_wait(&gate.open, &gate.mutex);
  pthread_mutex_unlock(&gate.mutex);
  return nullptr;
}

// How many of `wanted` threads can be running at once (each waits until all have
// started or one failed, so that their stacks are all mapped together).
int startable_threads(int wanted) {
  Gate gate;
  std::vector<pthread_t> threads(static_cast<size_t>(wanted));
  int started = 0;
  while (started < wanted && pthread_create(&threads[static_cast<size_t>(started)], nullptr, wait_at, &gate) == 0) {
    ++started;
  }
  pthread_mutex_lock(&gate.mutex);
  gate.released = true;
  pthread_cond_broadcast(&gate.open);
  pthread_mutex_unlock(&gate.mutex);
  for (int i = 0; i < started; ++i) pthread_join(threads[static_cast<size_t>(i)], nullptr);
  return started;
}

}  // namespace

void use_threads(int threads, int teams) {
  const int per_team = threads > 0 ? threads : omp_get_max_threads();
  const int wanted = per_team * std::max(1, teams);
  const int started = startable_threads(wanted);
  if (started < wanted) {
    const int fits = std::max(1, started / std::max(1, teams) - 1);
    throw Error("cannot start " + std::to_string(wanted) + " threads (-t " + std::to_string(per_team) +
                "): only " + std::to_string(started) +
                " started, out of memory (ulimit -v counts every thread's stack) or over the process limit "
                "(ulimit -u); try -t " + std::to_string(fits) + " or more memory");
  }
  omp_set_num_threads(per_team);
}

}  // namespace gatemap
