#pragma once
// One rule for every path a run touches, checked before the first byte is written: no
// file the run writes (an output, its index, a report beside it) may be a file it reads,
// the index of one (.bai .csi .crai .tbi .fai .gzi .gmi), the FASTA behind an index, or
// another file the run writes; at most one of them goes to standard output; each written
// file's folder exists and takes new files, and its name is not a folder.
#include <string>
#include <vector>

namespace gatemap::io {

class RunPaths {
 public:
  // A file the run reads (an input, a reference, an index); "" and "-" are skipped. With
  // `its_indexes` (not for `index`, whose output is the FASTA's .gmi) its indexes too.
  RunPaths& reads(const std::string& path, bool its_indexes = true);
  // A file the run writes, named by `flag` in errors (-o, --stats, ...), with the files it
  // writes beside it (its index). "" is skipped; "-" is standard output.
  RunPaths& writes(const std::string& path, const std::string& flag, const std::vector<std::string>& beside = {});
  // Throws UsageError naming the flag and the path that breaks the rule; IoError where a
  // written file's folder is missing or not writable, or its name is a folder.
  void check() const;

 private:
  struct Written {
    std::string path, flag;
  };
  std::vector<std::string> read_;  // with their indexes and FASTAs
  std::vector<Written> written_;
};

}  // namespace gatemap::io
