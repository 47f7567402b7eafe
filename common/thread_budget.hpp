#pragma once
// OpenMP's threads, started only where they can start. libgomp ends the process itself
// ("libgomp: Thread creation failed") when a team's thread cannot start, as under a
// tight memory limit (ulimit -v: every thread's stack counts): no error can be caught.
// So a run first starts as many threads as it will use, in one go, and says clearly
// what to do when they cannot start.
namespace gatemap {

// Sets OpenMP's thread count to `threads` (<= 0: every core) after checking that about
// that many threads per team, `teams` teams at once (the pipeline's reader, lanes and
// writer each start their own), can start; throws Error naming -t and a count that
// can start when they cannot.
void use_threads(int threads, int teams = 1);

}  // namespace gatemap
