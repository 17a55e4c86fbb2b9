// The front end's SIMD kernels for the architecture built for, under one name: simd::Available(),
// simd::Radix4Pass, simd::Split, simd::PowerSpectrum. x86-64: the AVX2 kernels, when the CPU has
// AVX2 (checked at run time); aarch64: the NEON ones (always there). The stages fall back to their
// plain loops when Available() is false or SIMD is not allowed; both paths give the same bits.
// aarch64 has more (simd_neon.h: the window, the FFT's load with its first pass), which the stages
// call under __aarch64__ alone until they have AVX2 twins.
#pragma once

#if defined(__aarch64__)
#include "features/simd_neon.h"
namespace earshot::features {
namespace simd = neon;
}
#else
#include "features/simd_avx2.h"
namespace earshot::features {
namespace simd = avx2;
}
#endif
