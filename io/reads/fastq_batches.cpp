// FastqSource's batches of FASTQ/FASTA files (smart pairing aside: fastq.cpp): cut in
// order from the files' lines, then parsed (checked and converted) on any thread.
#include <algorithm>
#include <future>
#include <string>

#include "common/error.hpp"
#include "io/reads/fastq.hpp"

namespace gatemap::io {

bool FastqSource::next_batch(ReadBatch& batch, size_t max_records, size_t max_bases, SinglesAmongPairs* singles) {
  if (smart_pairing_) {
    if (singles) return next_batch_smart(batch, *singles, max_records, max_bases);
    // A caller that takes pairs or single reads, one kind per input (correct).
    SinglesAmongPairs own;
    if (!next_batch_smart(batch, own, max_records, max_bases)) return false;
    if (own.reads.reads.empty()) return true;
    if (batch.reads.empty()) {
      batch = std::move(own.reads);
      return true;
    }
    throw FormatError("'" + mate1_->path() + "': read '" + own.reads.reads.front().name +
                      "' has no mate next to it among pairs: this command takes pairs or single reads, not both "
                      "(samtools view -f 1 keeps the pairs)");
  }
  if (!cut_batch(raw_, max_records, max_bases)) return false;
  parse_batch(raw_, batch, 2 * parse_threads_);
  return true;
}

// As a serial reader cuts: up to max_records reads (pairs count as two), a read or pair
// taken while the batch is under max_bases; records cut past that open the next batch.
// Both files are cut at once. A batch whose cut failed keeps every record cut, so that
// parsing checks them all before it throws, and is the last.
bool FastqSource::cut_batch(RawBatch& raw, size_t max_records, size_t max_bases) {
  if (!cuts()) throw Error("internal: only FASTQ/FASTA files without smart pairing are cut");
  raw.mate1.clear();
  raw.mate2.clear();
  raw.error = nullptr;
  raw.paired = mate2_ != nullptr;
  raw.first_id = fragments_;
  raw.cut = false;
  if (cut_failed_) return false;
  ahead1_.move_tail(0, raw.mate1);
  ahead2_.move_tail(0, raw.mate2);
  const size_t per_file = raw.paired ? std::max<size_t>(max_records, 2) / 2 : std::max<size_t>(max_records, 1);
  const size_t want = per_file - std::min(per_file, raw.mate1.size());
  if (raw.paired) {  // cut_many keeps its errors in the records: get() cannot throw them
    auto other = std::async(std::launch::async, [&] { return mate2_->cut_many(raw.mate2, want); });
    text1_->cut_many(raw.mate1, want);
    other.get();
  } else {
    text1_->cut_many(raw.mate1, want);
  }
  const size_t n1 = raw.mate1.size(), n2 = raw.mate2.size();
  if (raw.mate1.error || raw.mate2.error || (raw.paired && n1 != n2)) {
    if (!raw.mate1.error && !raw.mate2.error) {
      const bool longer1 = n1 > n2;
      const FastqReader& longer = longer1 ? *text1_ : *mate2_;
      const FastqReader& shorter = longer1 ? *mate2_ : *text1_;
      raw.error = std::make_exception_ptr(FormatError("FASTQ '" + shorter.path() + "' ends after " +
                                                      std::to_string(shorter.records_read()) +
                                                      " records but its mate file '" + longer.path() + "' has more"));
    }
    cut_failed_ = true;
    raw.cut = true;
    return true;
  }
  size_t taken = 0, bases = 0;
  while (taken < n1 && taken < per_file && bases < max_bases) {
    bases += raw.mate1.bases(taken) + (raw.paired ? raw.mate2.bases(taken) : 0);
    ++taken;
  }
  raw.mate1.move_tail(taken, ahead1_);
  if (raw.paired) raw.mate2.move_tail(taken, ahead2_);
  fragments_ += static_cast<int64_t>(taken);
  raw.cut = taken > 0;
  return raw.cut;
}

// Mate 1's records, then mate 2's, checked and converted on `threads` threads (the
// first bad record of each in file order), then the mates' names compared.
void FastqSource::parse_batch(RawBatch& raw, ReadBatch& batch, int threads) {
  raw.cut = false;
  batch.first_id = raw.first_id;
  batch.paired = raw.paired;
  const size_t stride = raw.paired ? 2 : 1, n1 = raw.mate1.size(), n2 = raw.mate2.size();
  batch.reads.resize(stride * std::max(n1, n2));
  FastqReader::convert_many(raw.mate1, batch.reads, 0, stride, threads);
  if (raw.paired) {
    FastqReader::convert_many(raw.mate2, batch.reads, 1, stride, threads);
    for (size_t i = 0; i < std::min(n1, n2); ++i) {
      const Read &first = batch.reads[2 * i], &second = batch.reads[2 * i + 1];
      if (first.name != second.name) {
        throw FormatError("FASTQ '" + *raw.mate2.path + "' record " + std::to_string(raw.mate2.records[i].record) +
                          ": mate name '" + second.name + "' does not match '" + first.name + "' in '" +
                          *raw.mate1.path + "'");
      }
    }
  }
  if (raw.error) std::rethrow_exception(raw.error);
}

}  // namespace gatemap::io
