#pragma once
// Streaming FASTQ reading (plain, gzip, bgzip; "-" is stdin) in chunks: single files,
// paired files, or pairs interleaved in one file among single reads (bwa mem -p). FASTA
// records ('>', one or more sequence lines) are read too, without qualities, as bwa and
// minimap2 accept them.
// Records are validated as they are read; every error names the file, the record
// number (1-based), the read name and the line.
// Sequences come back uppercase ACGTN (IUPAC codes become N); qualities stay Phred+33.
#include <cstdint>
#include <exception>
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
  std::string tags;  // SAM/BAM/CRAM input with -C: the record's own tags, as BAM stores them (io/reads/aligned_reads.hpp)
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

// One file's records as cut from its lines (their structure checked), before their
// content is checked and converted: cutting is serial, converting may run on any
// thread (FastqSource::cut_batch / parse_batch).
struct RawRecords {
  struct Record {  // a record's lines (offsets into text) and where they were, for messages
    int64_t record = 0, header_line = 0, seq_line = 0, qual_line = 0;
    size_t header = 0, header_len = 0, seq = 0, seq_len = 0, qual = 0, qual_len = 0;
    int32_t fasta = -1;  // a FASTA record, converted when cut: fasta_reads[fasta]
  };
  const std::string* path = nullptr;
  std::string text;
  std::vector<Record> records;
  std::vector<Read> fasta_reads;
  std::exception_ptr error;  // what ended the cut after the last record (thrown once those are checked)

  size_t size() const { return records.size(); }
  size_t bases(size_t i) const;
  void clear();
  // Moves records [first, size()) to the end of `to` (their text copied).
  void move_tail(size_t first, RawRecords& to);
};

// Where a FastqSource takes records from: FASTQ/FASTA text, or SAM/BAM/CRAM
// (io/reads/aligned_reads.hpp).
class ReadRecords {
 public:
  virtual ~ReadRecords() = default;
  // Reads up to `want` records into out[0, n) (out grows as needed; its Reads are
  // reused) and returns n; fewer than `want` only at the end of the file.
  virtual size_t next_many(std::vector<Read>& out, size_t want, int threads) = 0;
  virtual int64_t records_read() const = 0;
  virtual const std::string& path() const = 0;
  // How much of the file has been read, 0 to 1; -1 where unknown. Thread-safe.
  virtual double fraction_read() const { return -1; }
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
  // reused) and returns n: cut_many, then convert_many on `threads` threads.
  size_t next_many(std::vector<Read>& out, size_t want, int threads) override;
  int64_t records_read() const override { return records_; }
  const std::string& path() const override;
  double fraction_read() const override;

  // Appends up to `want` records' lines to `out` (their structure checked; a malformed
  // record, or a read error, ends the cut as out.error) and returns how many.
  size_t cut_many(RawRecords& out, size_t want);
  // Converts in's records into out[first + stride * i] on `threads` threads; throws the
  // first bad record's error in file order, then in.error. FASTA records are moved out.
  static void convert_many(RawRecords& in, std::vector<Read>& out, size_t first, size_t stride, int threads);

 private:
  // Appends the next record (false at end of file); throws FormatError on bad structure.
  bool cut_one(RawRecords& out);
  // cut_one's work for a plain 4-line record straight from a mapped file's bytes; false,
  // having taken nothing, for anything else (cut_one takes it then).
  bool cut_plain(RawRecords& out);

  std::unique_ptr<LineReader> in_;
  int64_t records_ = 0;
  RawRecords raw_;  // next() and next_many()'s records
};

// A batch as FastqSource::cut_batch cuts it, for parse_batch to convert.
struct RawBatch {
  RawRecords mate1, mate2;  // mate2: the second file's records, for paired files
  int64_t first_id = 0;
  bool paired = false;
  bool cut = false;          // holds records not yet parsed
  std::exception_ptr error;  // the files end apart: thrown once the mates' names are checked
};

// One or two FASTQ files read in lockstep, or (smart pairing) one file of pairs and
// single reads; a SAM/BAM/CRAM file is always read so, its mates told by their flags.
// For two files the mates' names must agree (after "/1" "/2" removal) and both files
// must end together. Smart pairing, as bwa mem -p: two consecutive records of one name
// are a pair (mate 1, mate 2), any other record is a single read.
class FastqSource {
 public:
  // Each file is read and decompressed ahead on a thread of its own (io/reads/input_stream.hpp),
  // BGZF on `threads` threads per file.
  // `reference`: the FASTA a CRAM input is decoded against.
  // `keep_tags`: a SAM/BAM/CRAM input's reads carry their records' tags (Read::tags).
  FastqSource(const std::string& path1, const std::string& path2 = "", bool smart_pairing = false, int threads = 1,
              const std::string& reference = "", bool keep_tags = false);
  // Fills `batch` with up to max_records reads (pairs count as two) or until
  // max_bases; returns false when nothing was left. Not thread-safe. With smart pairing
  // the single reads of the stretch go to `singles` and the limits count them too; a pair
  // is never split between batches. Without `singles`, a batch of smart pairing is all
  // pairs or all single reads (FormatError where an input mixes them).
  // Two files are cut at once, and converted on the OpenMP threads.
  bool next_batch(ReadBatch& batch, size_t max_records, size_t max_bases, SinglesAmongPairs* singles = nullptr);
  // next_batch in two steps, for a pipeline that converts several batches at once:
  // cut_batch (in order; not thread-safe) takes the batch's records' lines, parse_batch
  // (on any thread) converts them, with next_batch's batches and errors. Only where
  // cuts(): FASTQ/FASTA files without smart pairing.
  bool cuts() const { return text1_ && !smart_pairing_; }
  bool cut_batch(RawBatch& raw, size_t max_records, size_t max_bases);
  static void parse_batch(RawBatch& raw, ReadBatch& batch, int threads);
  bool paired() const { return mate2_ || smart_pairing_; }
  // The @RG lines of a SAM/BAM/CRAM input's header; empty for FASTQ.
  const std::vector<std::string>& read_groups() const { return read_groups_; }
  // The @CO lines of a SAM/BAM/CRAM input's header; empty for FASTQ.
  const std::vector<std::string>& comment_lines() const { return comment_lines_; }
  int64_t fragments_read() const { return fragments_; }
  // How much of the input files has been read, 0 to 1 (the least of two); -1 where unknown
  // (a pipe, SAM/BAM). Thread-safe: a progress line's ETA.
  double fraction_read() const;

 private:
  bool next_batch_smart(ReadBatch& pairs, SinglesAmongPairs& singles, size_t max_records, size_t max_bases);
  std::unique_ptr<ReadRecords> mate1_;
  std::unique_ptr<FastqReader> mate2_;
  FastqReader* text1_ = nullptr;  // mate1_, where it reads FASTQ/FASTA text
  std::vector<std::string> read_groups_, comment_lines_;
  bool smart_pairing_ = false;
  bool at_end_ = false;  // smart pairing: the file has no more records than ahead_ holds
  bool cut_failed_ = false;  // a cut ended in an error: nothing more is cut
  int parse_threads_ = 1;
  int64_t fragments_ = 0;
  // Smart pairing: records parsed but not yet in a batch.
  std::vector<Read> ahead_;
  std::vector<Read> first_;  // the records as parsed; reused across batches
  // Records cut but left out of the last batch by max_bases: the next batch's first.
  RawRecords ahead1_, ahead2_;
  RawBatch raw_;  // next_batch's
};

}  // namespace gatemap::io
