// libFuzzer target: the reference FASTA parser (names, line lengths, N runs, IUPAC).
#include "common/error.hpp"
#include "io/reads/fasta.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gatemap::fuzz::MemFile file(data, size);
  if (!file.ok()) return 0;
  try {
    gatemap::io::read_fasta(file.path());
  } catch (const gatemap::Error&) {
  }
  return 0;
}
