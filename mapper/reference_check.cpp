#include "mapper/reference_check.hpp"

#include <htslib/faidx.h>
#include <omp.h>

#include <cctype>
#include <cstdlib>
#include <limits>
#include <memory>
#include <vector>

#include "common/error.hpp"
#include "common/parallel.hpp"

namespace gatemap::mapper {

namespace {

constexpr int64_t kWindow = int64_t{4} << 20;  // bases compared at a time by one thread

char as_indexed(char c) {
  c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return c == 'A' || c == 'C' || c == 'G' || c == 'T' ? c : 'N';
}

struct Window {
  size_t contig;
  int64_t begin, end;  // on the contig
};

}  // namespace

void check_reference_matches_index(const index::Index& idx, const std::string& fasta, int threads) {
  std::vector<Window> windows;
  for (size_t c = 0; c < idx.contigs().size(); ++c) {
    for (int64_t b = 0; b < idx.contigs()[c].length; b += kWindow) {
      windows.push_back({c, b, std::min(idx.contigs()[c].length, b + kWindow)});
    }
  }
  // Loaded once first: a missing .fai is built here, not by every thread at once.
  const auto load = [&fasta] {
    std::unique_ptr<faidx_t, void (*)(faidx_t*)> fai(fai_load(fasta.c_str()), fai_destroy);
    if (!fai) throw IoError("cannot read the reference '" + fasta + "' (a FASTA, or its .fai)");
    return fai;
  };
  load();
  // The first window that differs, in reference order, with where and how.
  size_t first_bad = std::numeric_limits<size_t>::max();
  std::string why;
  ParallelErrors errors;  // an exception may not leave the OpenMP region
#pragma omp parallel num_threads(std::max(1, threads))
  {
    // One handle a thread: faidx reads are not thread-safe on a shared handle.
    std::unique_ptr<faidx_t, void (*)(faidx_t*)> fai(nullptr, fai_destroy);
    errors.run([&] { fai = load(); });
#pragma omp for schedule(dynamic, 1)
    for (size_t w = 0; w < windows.size(); ++w) errors.run([&] {
      const Window& win = windows[w];
      const index::Contig& contig = idx.contigs()[win.contig];
      hts_pos_t len = 0;
      char* got = faidx_fetch_seq64(fai.get(), contig.name.c_str(), win.begin, win.end - 1, &len);
      const std::string want = idx.sequence(contig.begin + win.begin, contig.begin + win.end);
      std::string bad;
      if (!got || len != win.end - win.begin) {
        bad = "contig '" + contig.name + "' is shorter there or missing";
      } else {
        for (int64_t i = 0; i < len; ++i) {
          if (as_indexed(got[i]) != want[static_cast<size_t>(i)]) {
            bad = "contig '" + contig.name + "' differs at position " + std::to_string(win.begin + i + 1) + " (" +
                  got[i] + " in the FASTA, " + want[static_cast<size_t>(i)] + " in the index)";
            break;
          }
        }
      }
      std::free(got);
      if (!bad.empty()) {
#pragma omp critical(reference_check)
        if (w < first_bad) first_bad = w, why = bad;
      }
    });
  }
  errors.rethrow();
  if (!why.empty()) {
    throw UsageError("-T '" + fasta + "' is not the index's reference: " + why +
                     "; a CRAM written against it would not decode");
  }
}

}  // namespace gatemap::mapper
