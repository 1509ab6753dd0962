#pragma once
// A backend-independent look at one layer's rows before any proxy is computed: non-finite
// values, identical rows and the magnitude of the entries. computeLayerGeometry uses it to
// decide which proxies are defined (docs/geometry.md, "Degenerate layers"), so the CPU and
// CUDA backends only ever see layers on which every requested proxy exists.

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "geometry/proxy_options.h"

namespace strata::geometry {

struct RowScreening {
  int64_t rows = 0;
  int64_t nonFiniteRows = 0;    // rows holding a NaN or ±Inf
  int64_t nonFiniteValues = 0;  // entries that are NaN or ±Inf
  /** Distinct finite rows (value equality, −0 = +0). */
  int64_t distinctRows = 0;
  /** Per row: the lowest index of a row equal to it (itself if none before); -1 if non-finite. */
  std::vector<int64_t> group;
  /** max |x| over the finite entries (0 when all are zero or non-finite). */
  double maxAbs = 0;
};

/** Screens `states`: O(N·d) reads and one hash per row. */
RowScreening screenRows(const HiddenStates& states);

/**
 * The power of two p that brings max|x| into [1, 2) when it lies outside [2^-32, 2^32], else 1.
 * Every proxy is invariant under H → p·H (the normalisation divides the scale out), and a power
 * of two scales float32 exactly, so the proxies of p·H are those of H; the rescaled copy keeps
 * float32 products (the CUDA backend's Σ) from overflowing (|x| ~ 1e30) or underflowing (1e-30).
 */
double rescaleFactor(double maxAbs);

/** Number of distinct groups among the rows of positive weight (empty weights: all rows). */
int64_t distinctRowsOfPositiveWeight(const RowScreening& screening, std::span<const float> weights);

/** Whether every pair joins two equal rows (u = 0 for all): m_mono's Rayleigh form is undefined. */
bool everyPairIsZero(const RowScreening& screening,
                     std::span<const std::pair<int64_t, int64_t>> pairs);

}  // namespace strata::geometry
