#include "correct/kept_text.hpp"

#include <new>

#include "common/split_threads.hpp"
#include "io/text/fastq_writer.hpp"

namespace gatemap::correct {

bool KeptText::keep(const io::ReadBatch& batch, int threads) {
  const size_t n = batch.size();
  paired = batch.paired;
  seq_at.resize(n);
  len.resize(n);
  std::vector<size_t> at(n);  // each record's offset in its file's text
  size_t end[2] = {0, 0};
  for (size_t i = 0; i < n; ++i) {
    const io::Read& r = batch.reads[i];
    if (r.qual.size() != r.seq.size()) return false;
    at[i] = end[file_of(i)];
    end[file_of(i)] += io::fastq_record_size(r);
    len[i] = static_cast<int32_t>(r.seq.size());
  }
  try {
    for (int f = 0; f < 2; ++f) text[f] = io::HugeBlock(end[f]);
  } catch (const std::bad_alloc&) {
    return false;  // no memory for it: the correction pass reads the files again
  }
  split_threads(n, threads, [&](size_t begin, size_t stop) {
    for (size_t i = begin; i < stop; ++i) {
      seq_at[i] = at[i] + io::format_fastq_record(batch.reads[i], text[file_of(i)].chars() + at[i]);
    }
  });
  return true;
}

}  // namespace gatemap::correct
