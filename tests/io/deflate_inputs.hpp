#pragma once
// Blocks to compress: the shapes BAM blocks take (read names sharing a prefix, 4-bit
// bases, qualities with runs) and the edge cases of DEFLATE (1-3 bytes, one repeated
// byte, incompressible bytes, a full 65280-byte block, matches longer than 258).
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "io/deflate/bgzf_deflate.hpp"

namespace gatemap::test {

inline std::string bam_like_block(std::mt19937_64& rng, size_t size) {
  std::string s;
  static const char kQual[] = "#,:FFFFFFF";  // binned qualities, mostly F
  while (s.size() < size) {
    s += "A00123:8:H7W2LDSXX:1:" + std::to_string(1101 + rng() % 20) + ":" + std::to_string(rng() % 30000) + ":" +
         std::to_string(rng() % 30000);
    s.push_back('\0');
    for (int i = 0; i < 36; ++i) s.push_back(static_cast<char>(rng() % 4 ? 0 : rng() % 256));  // core fields
    for (int i = 0; i < 75; ++i) s.push_back(static_cast<char>("\x11\x12\x14\x18\x21\x22\x24\x28\x41\x42\x44\x48\x81\x82\x84\x88"[rng() % 16]));
    for (int i = 0; i < 150; ++i) {
      const char q = kQual[rng() % 10];
      for (int r = static_cast<int>(rng() % 4); r >= 0 && i < 150; --r, ++i) s.push_back(static_cast<char>(q - 33));
    }
    s += "NMC\x02" "ASC\x8c" "XSC\x00" "RGZrg1";
    s.push_back('\0');
  }
  s.resize(size);
  return s;
}

inline std::vector<std::string> deflate_inputs(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> in = {"a", "ab", "abc", "abcabcabcabc", std::string(65280, 'x'), std::string(1000, '\0')};
  std::string random(65280, ' ');
  for (char& c : random) c = static_cast<char>(rng());
  in.push_back(random);
  std::string text;
  while (text.size() < 65280) text += "the quick brown fox " + std::to_string(rng() % 1000) + " jumps over ";
  text.resize(65280);
  in.push_back(text);
  std::string periodic;  // matches at the window's far end and of every length
  while (periodic.size() < 65280) periodic += random.substr(0, 1 + rng() % 40000);
  periodic.resize(65280);
  in.push_back(periodic);
  for (size_t size : {size_t{100}, size_t{4000}, size_t{40000}, size_t{65280}, size_t{65280}, size_t{65280}}) {
    in.push_back(bam_like_block(rng, size));
  }
  std::string three_letters(65280, ' ');  // many ways agree on 3 or 4 bytes, fewer beyond: the ties
  for (char& c : three_letters) c = "acg"[rng() % 3];
  in.push_back(three_letters);
  return in;
}

// Each input as a whole BGZF block from `c`.
inline std::vector<std::string> compress_blocks(io::BlockCompressor& c, const std::vector<std::string>& in) {
  std::vector<std::string> out(in.size(), std::string(65536, '\0'));
  std::vector<io::BgzfJob> jobs(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    jobs[i].in = reinterpret_cast<const uint8_t*>(in[i].data());
    jobs[i].size = static_cast<uint32_t>(in[i].size());
    jobs[i].out = reinterpret_cast<uint8_t*>(out[i].data());
  }
  c.compress(jobs.data(), jobs.size());
  for (size_t i = 0; i < in.size(); ++i) out[i].resize(jobs[i].out_size);
  return out;
}

}  // namespace gatemap::test
