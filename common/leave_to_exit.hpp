#pragma once
// What a run of the gatemap binary leaves for the process's exit to free: the exit drops
// a process's memory (and a GPU's) at once, where destructors free it piece by piece
// (0.1-0.2 s at the end of a mapping or calling run on the GPU machine). Compilers leave
// their trees to the exit the same way. Library callers (tests, `gatemap demo`) free.
#include <memory>

namespace gatemap {

template <class T>
void leave_to_exit(std::unique_ptr<T>& p) {
  static_cast<void>(p.release());
}

}  // namespace gatemap
