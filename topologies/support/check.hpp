#pragma once
// Internal invariants: unlike assert(), TPUSIM_CHECK stays on in release builds. A failed check is a bug in
// tpusim, never a user error (those throw InputError), so it aborts with the location.
#include <cstdio>
#include <cstdlib>

#define TPUSIM_CHECK(condition)                                                                          \
  do {                                                                                                   \
    if (!(condition)) {                                                                                  \
      std::fprintf(stderr, "%s:%d: internal error: check failed: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                                      \
    }                                                                                                    \
  } while (false)
