#pragma once
// Outputs that never look complete unless they are: a file is written under a temporary
// name in its own directory (the process id and a random part: two runs never share it)
// and renamed to its name by commit(), so a run that fails (bad input at record 4001, a
// full disk, out of memory, SIGTERM/SIGINT/SIGHUP) leaves no partial file that passes
// for a result. Standard output ("-", /dev/stdout) and other non-regular targets
// (a pipe, /dev/null) are written in place. Also: an output that is one of the inputs
// is refused before anything is opened.
#include <string>
#include <vector>

#include "common/signal_cleanup.hpp"

namespace gatemap::io {

class OutputFile {
 public:
  explicit OutputFile(const std::string& path);
  ~OutputFile();  // removes the temporary file unless committed; never throws
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  const std::string& path() const { return path_; }         // the name the user gave
  const std::string& write_path() const { return write_; }  // where to write until commit()
  // Renames the finished file to path(); throws IoError when that fails. A file not yet
  // on disk (not synced) replaces an old one of that name by removing it first: renamed
  // over a file, ext4 writes the new one out before the rename returns (auto_da_alloc;
  // correct's ~700 MB: 0.2-0.6 s, H200), which a new name never costs. The name then
  // holds the old file, none, or the new one: never a part of one.
  enum class Replace { by_rename, remove_first };
  void commit(Replace how = Replace::by_rename);

 private:
  std::string path_, write_;
  bool committed_ = false;
  RemovedOnSignal on_signal_;  // the temporary file, removed if a signal ends the run
};

// A new folder under $TMPDIR (or /tmp) named PREFIX plus a random part; throws IoError
// naming TMPDIR when it is no folder, or the folder when it cannot be made.
std::string make_temp_folder(const std::string& prefix);

// Whether two paths name the same file (existing or not).
bool same_file(const std::string& a, const std::string& b);

// Throws UsageError ("<flag> 'x' is also an input") when `out` names one of `inputs`
// or an index of one (empty names and "-" are skipped): io/run_paths.hpp's rule for a
// command with one output.
void check_not_input(const std::string& out, const std::string& flag, const std::vector<std::string>& inputs);

// A report beside the main output (--stats, --summary, --wrong), checked at the start as
// io/run_paths.hpp checks every output against `others` (the inputs and the main outputs),
// so a bad name fails before any work (UsageError). Written by io/text/text_output.hpp.
void check_side_output(const std::string& path, const std::string& flag, const std::vector<std::string>& others);

// Removes a committed output and the files beside it (its index) when a later step of the
// run fails (a report that could not be written): no output under its name after a
// failure. Standard output and other non-regular files are left alone; never throws.
void remove_outputs(const std::string& path, const std::vector<std::string>& beside = {});

}  // namespace gatemap::io
