#pragma once
// Streaming FASTQ reading (plain, gzip, bgzip; "-" is stdin) in chunks: single files,
// paired files, or pairs interleaved in one file among single reads (bwa mem -p). FASTA
// records ('>', one or more sequence lines) are read too, without qualities, as bwa and
// minimap2 accept them.
// Records are validated as they are read; every error names the file, the record
// number (1-based), the read name and the line.
// Sequences come back uppercase ACGTN (IUPAC codes become N); qualities stay Phred+33.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gatemap::io {

class LineReader;

struct Read {
  std::string name;  // first word of the '@' line, a trailing "/1" or "/2" removed
  std::string seq;   // uppercase A, C, G, T, N
  std::string qual;  // Phred+33, same length as seq; empty for FASTA records
  std::string comment;  // the header line after the name (bwa mem -C copies it to SAM)
  std::string mate_suffix = {};  // "/1" or "/2" removed from the name, to write the header back as it was
  uint8_t mate = 0;              // 1 or 2 where the input's flags say (SAM/BAM/CRAM input), else 0
};

struct ReadBatch {
  std::vector<Read> reads;  // single: one per read; paired: mate 1, mate 2, mate 1, ...
  int64_t first_id = 0;     // input order of reads[0] (pairs count once)
  bool paired = false;
  size_t size() const { return reads.size(); }
};

// Smart pairing (bwa mem -p) reads a stretch of one file as its pairs (a ReadBatch) and
// these: the single reads among them, and where each fragment came in the file.
struct SinglesAmongPairs {
  ReadBatch reads;              // in file order
  std::vector<uint8_t> single;  // per fragment of the stretch, in file order: 1 a single read, 0 a pair
};

// Where a FastqSource takes records from: FASTQ/FASTA text, or SAM/BAM/CRAM
// (io/aligned_reads.hpp).
class ReadRecords {
 public:
  virtual ~ReadRecords() = default;
  // Reads up to `want` records into out[0, n) (out grows as needed; its Reads are
  // reused) and returns n; fewer than `want` only at the end of the file.
  virtual size_t next_many(std::vector<Read>& out, size_t want, int threads) = 0;
  virtual int64_t records_read() const = 0;
  virtual const std::string& path() const = 0;
};

class FastqReader : public ReadRecords {
 public:
  explicit FastqReader(const std::string& path, int threads = 1);  // throws IoError; threads: see LineReader
  ~FastqReader() override;
  FastqReader(const FastqReader&) = delete;
  FastqReader& operator=(const FastqReader&) = delete;

  // Reads the next record; false at end of file. Throws FormatError on bad input.
  bool next(Read& read);
  // Reads up to `want` records into out[0, n) (out grows as needed; its Reads are
  // reused) and returns n. Lines are split on this thread, records checked and
  // converted on `threads` threads (split_threads); errors as next() gives them, the first in
  // file order.
  size_t next_many(std::vector<Read>& out, size_t want, int threads) override;
  int64_t records_read() const override { return records_; }
  const std::string& path() const override;

 private:
  struct RawRecord;
  // The next record's lines copied into text_ (a FASTA record is converted into
  // `fasta` at once); false at end of file.
  bool read_raw(RawRecord& raw, Read& fasta);
  void convert(const RawRecord& raw, Read& read) const;

  std::unique_ptr<LineReader> in_;
  int64_t records_ = 0;
  std::string text_;  // lines of the records being parsed
  std::vector<RawRecord> raw_;
};

// One or two FASTQ files read in lockstep, or (smart pairing) one file of pairs and
// single reads; a SAM/BAM/CRAM file is always read so, its mates told by their flags.
// For two files the mates' names must agree (after "/1" "/2" removal) and both files
// must end together. Smart pairing, as bwa mem -p: two consecutive records of one name
// are a pair (mate 1, mate 2), any other record is a single read.
class FastqSource {
 public:
  // Each file is read and decompressed ahead on a thread of its own (io/input_stream.hpp),
  // BGZF on `threads` threads per file.
  // `reference`: the FASTA a CRAM input is decoded against.
  FastqSource(const std::string& path1, const std::string& path2 = "", bool smart_pairing = false, int threads = 1,
              const std::string& reference = "");
  // Fills `batch` with up to max_records reads (pairs count as two) or until
  // max_bases; returns false when nothing was left. Not thread-safe. With smart pairing
  // the single reads of the stretch go to `singles` (which it then needs) and the limits
  // count them too; a pair is never split between batches.
  // Two files are parsed at once, each on half the OpenMP threads; one file on all of them.
  bool next_batch(ReadBatch& batch, size_t max_records, size_t max_bases, SinglesAmongPairs* singles = nullptr);
  bool paired() const { return mate2_ || smart_pairing_; }
  // The @RG lines of a SAM/BAM/CRAM input's header; empty for FASTQ.
  const std::vector<std::string>& read_groups() const { return read_groups_; }
  int64_t fragments_read() const { return fragments_; }

 private:
  bool next_batch_single(ReadBatch& batch, size_t max_records, size_t max_bases);
  bool next_batch_smart(ReadBatch& pairs, SinglesAmongPairs& singles, size_t max_records, size_t max_bases);
  std::unique_ptr<ReadRecords> mate1_;
  std::unique_ptr<FastqReader> mate2_;
  std::vector<std::string> read_groups_;
  bool smart_pairing_ = false;
  bool at_end_ = false;  // smart pairing: the file has no more records than ahead_ holds
  int parse_threads_ = 1;  // per file of a pair (the two files are parsed at once)
  int64_t fragments_ = 0;
  // Records parsed (pairs: and checked) but left out of the last batch by max_bases.
  std::vector<Read> ahead_;
  std::vector<Read> first_, second_;  // the mates' records as parsed; reused across batches
};

}  // namespace gatemap::io
