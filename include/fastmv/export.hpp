// Symbols of the public API are exported from libfastmv; everything else is hidden.
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define FASTMV_API __attribute__((visibility("default")))
#else
#define FASTMV_API
#endif
