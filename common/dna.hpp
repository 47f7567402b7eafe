#pragma once
// Nucleotide codes shared by every stage: A=0 C=1 G=2 T=3 (the 2-bit packing of
// GateKeeper and the index), N=4 for anything else. Complement of code c < 4 is 3 - c.
#include <cstdint>
#include <string>
#include <string_view>

namespace gatemap {

constexpr uint8_t kBaseN = 4;

// ASCII -> code; lowercase is accepted, every non-ACGT letter (IUPAC, N, '.') gives kBaseN.
extern const uint8_t kAsciiToCode[256];
constexpr char kCodeToAscii[5] = {'A', 'C', 'G', 'T', 'N'};

inline uint8_t base_code(char c) { return kAsciiToCode[static_cast<unsigned char>(c)]; }
inline uint8_t complement_code(uint8_t code) { return code < 4 ? 3 - code : kBaseN; }

// Reverse complement of an ACGTN string (other letters become N).
std::string reverse_complement(std::string_view seq);
// The same into out (its memory reused).
void reverse_complement_into(std::string_view seq, std::string& out);

}  // namespace gatemap
