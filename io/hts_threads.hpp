#pragma once
// Multi-threaded BGZF through htslib, started only where the threads can start: htslib
// does not check that its I/O thread started, and waits for it forever when memory
// (ulimit -v) is too tight for one more thread stack. So as many threads are started
// (and released) first; if that fails the file is (de)compressed on the calling thread,
// said on stderr. Nothing else changes: the bytes written are the same.
#include <htslib/bgzf.h>
#include <htslib/hts.h>
#include <htslib/thread_pool.h>

#include <string>

namespace gatemap::io {

// hts_set_threads(fp, threads) when threads > 1 and they can start; `what` names the file.
void set_hts_threads(htsFile* fp, int threads, const std::string& what);
// bgzf_mt(fp, threads, 256), likewise.
void set_bgzf_threads(BGZF* fp, int threads, const std::string& what);
// hts_tpool_init(threads), likewise; null (work on the calling thread) when it cannot.
hts_tpool* start_hts_pool(int threads, const std::string& what);

}  // namespace gatemap::io
