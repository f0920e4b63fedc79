/* SPDX-License-Identifier: MIT */
/* dynid core: the composite-rigid-body inertia matrix for many states per
 * call (dynamics.h, dy_crba_batch).
 *
 * The batch form of core/crba.c in the style of core/batch.c: the states
 * are cut into chunks of DY_BATCH_LANES (8), every per-link quantity of a
 * chunk is held as [joint][component][lane] in the dyBatch scratch (the
 * composite bodies in its comp field), and every arithmetic statement sits
 * in a loop over the 8 lanes of a fixed trip count, which the compiler
 * turns into vector instructions. The chunk kernel is compiled for
 * AVX-512F, AVX2 and SSE2 (DY_CLONES) and chosen at load time.
 *
 * Each lane performs dy_crba's operations in the same order (dy_frames,
 * then the composite pass with dyu_mulMatVec3 and dyu_rotSym6 written out,
 * then the columns); only the products with R_{j-1,j}'s structural zero
 * R[2] are left out, which can change nothing but the sign of a zero. So
 * H equals dy_crba's state by state to rounding (cos, sin theta by
 * dyu_sincos8, within 2 ulp of dy_frames' libm calls). */
#include "core/dynamics.h"
#include "core/util.h"
#include "core/transmission.h"
#include <math.h>
#include <stddef.h>
#include <string.h>

#define B DY_BATCH_LANES
#define CRBA_INL static inline __attribute__((always_inline))


/* R_{j-1,j} = Rx(alpha) Rz(theta) of one lane, row-major without R[2] = 0,
 * and O_j's y, z in frame j-1 (x is a_j) */
typedef struct { double R0, R1, R3, R4, R5, R6, R7, R8, p1, p2; } crbaFrame;
CRBA_INL crbaFrame crba_lane_frame(const dyBatch* restrict W, int j, int b, double ca, double sa) {
  const double ct = W->ct[j][b], st = W->st[j][b];
  const crbaFrame f = {ct, -st, ca*st, ca*ct, -sa, sa*st, sa*ct, ca, W->p[j][0][b], W->p[j][1][b]};
  return f;
}

/* one lane of the composite step j -> j-1 (dy_crba's backward loop):
 *   M' += M;  MS' += R MS + M p;
 *   J' += R J R^T - M [p]^2 - [p][R MS] - [R MS][p]
 * with R J R^T as dyu_rotSym6 forms it (T = R J, O = T R^T, averaged
 * off-diagonal pairs) */
CRBA_INL void composite_lane(dyBatch* restrict W, int j, int b, double ca, double sa, double p0) {
  const crbaFrame f = crba_lane_frame(W, j, b, ca, sa);
  const double R0 = f.R0, R1 = f.R1, R3 = f.R3, R4 = f.R4, R5 = f.R5, R6 = f.R6, R7 = f.R7,
               R8 = f.R8, p1 = f.p1, p2 = f.p2;
  /* (W->comp written out: a pointer into W would hide from the vectoriser
   * that the fields do not overlap) */
  const double J0 = W->comp[j][0][b], J1 = W->comp[j][1][b], J2 = W->comp[j][2][b],
               J3 = W->comp[j][3][b], J4 = W->comp[j][4][b], J5 = W->comp[j][5][b];
  const double m0 = W->comp[j][6][b], m1 = W->comp[j][7][b], m2 = W->comp[j][8][b],
               M = W->comp[j][9][b];
  const double s0 = R0*m0 + R1*m1, s1 = R3*m0 + R4*m1 + R5*m2, s2 = R6*m0 + R7*m1 + R8*m2;
  /* T = R J (J symmetric: rows (J0 J1 J2), (J1 J3 J4), (J2 J4 J5)) */
  const double T0 = R0*J0 + R1*J1, T1 = R0*J1 + R1*J3, T2 = R0*J2 + R1*J4;
  const double T3 = R3*J0 + R4*J1 + R5*J2, T4 = R3*J1 + R4*J3 + R5*J4, T5 = R3*J2 + R4*J4 + R5*J5;
  const double T6 = R6*J0 + R7*J1 + R8*J2, T7 = R6*J1 + R7*J3 + R8*J4, T8 = R6*J2 + R7*J4 + R8*J5;
  /* O = T R^T */
  const double O0 = T0*R0 + T1*R1, O1 = T0*R3 + T1*R4 + T2*R5, O2 = T0*R6 + T1*R7 + T2*R8;
  const double O3 = T3*R0 + T4*R1, O4 = T3*R3 + T4*R4 + T5*R5, O5 = T3*R6 + T4*R7 + T5*R8;
  const double O6 = T6*R0 + T7*R1, O7 = T6*R3 + T7*R4 + T8*R5, O8 = T6*R6 + T7*R7 + T8*R8;
  const double Jr0 = O0, Jr1 = 0.5*(O1+O3), Jr2 = 0.5*(O2+O6), Jr3 = O4, Jr4 = 0.5*(O5+O7),
               Jr5 = O8;
  const double pp = p0*p0 + p1*p1 + p2*p2, ps = p0*s0 + p1*s1 + p2*s2;
  W->comp[j-1][0][b] += Jr0 + M*(pp - p0*p0) + 2*ps - 2*p0*s0;
  W->comp[j-1][1][b] += Jr1 - M*p0*p1 - p0*s1 - s0*p1;
  W->comp[j-1][2][b] += Jr2 - M*p0*p2 - p0*s2 - s0*p2;
  W->comp[j-1][3][b] += Jr3 + M*(pp - p1*p1) + 2*ps - 2*p1*s1;
  W->comp[j-1][4][b] += Jr4 - M*p1*p2 - p1*s2 - s1*p2;
  W->comp[j-1][5][b] += Jr5 + M*(pp - p2*p2) + 2*ps - 2*p2*s2;
  W->comp[j-1][6][b] += s0 + M*p0;
  W->comp[j-1][7][b] += s1 + M*p1;
  W->comp[j-1][8][b] += s2 + M*p2;
  W->comp[j-1][9][b] += M;
}

/* composite bodies: comp[j] = link j's (J, MS, M), then for j = n-1 .. 1
 * composite j added into j-1 in frame j-1 (composite_lane) */
CRBA_INL void crba_composite(const dyModel* m, const double* par, dyBatch* restrict W) {
  for (int j = 0; j < m->n; j++)
    for (int k = 0; k < DY_NPAR_LINK; k++) {
      const double v = par[DY_NPAR_LINK*j + k];
      for (int b = 0; b < B; b++) W->comp[j][k][b] = v;
    }
  for (int j = m->n - 1; j > 0; j--) {
    const double ca = m->cos_alpha[j], sa = m->sin_alpha[j], p0 = m->dh_a[j];
    for (int b = 0; b < B; b++) composite_lane(W, j, b, ca, sa, p0);
  }
}

/* one lane of the step of a column's wrench from frame i to frame i-1:
 *   F' = R F,  N' = R N + p x R F */
CRBA_INL void carry_lane(const dyBatch* restrict W, double (*F)[B], double (*N)[B], int i, int b,
                         double ca, double sa, double p0) {
  const crbaFrame f = crba_lane_frame(W, i, b, ca, sa);
  const double F0 = F[0][b], F1 = F[1][b], F2 = F[2][b], N0 = N[0][b], N1 = N[1][b], N2 = N[2][b];
  const double rf0 = f.R0*F0 + f.R1*F1, rf1 = f.R3*F0 + f.R4*F1 + f.R5*F2,
               rf2 = f.R6*F0 + f.R7*F1 + f.R8*F2;
  double rn0 = f.R0*N0 + f.R1*N1, rn1 = f.R3*N0 + f.R4*N1 + f.R5*N2,
         rn2 = f.R6*N0 + f.R7*N1 + f.R8*N2;
  rn0 += f.p1*rf2 - f.p2*rf1; rn1 += f.p2*rf0 - p0*rf2; rn2 += p0*rf1 - f.p1*rf0;
  F[0][b] = rf0; F[1][b] = rf1; F[2][b] = rf2;
  N[0][b] = rn0; N[1][b] = rn1; N[2][b] = rn2;
}

/* lanes 0..nb-1 of v into entry e of the output (H[e*ld + b]; a full
 * chunk by a fixed-size copy, which the compiler inlines as vector moves) */
CRBA_INL void put_entry(double* restrict H, size_t ld, int e, const double* v, int nb) {
  double* h = H + (size_t)e * ld;
  if (nb == B) memcpy(h, v, B * sizeof(double));
  else for (int b = 0; b < nb; b++) h[b] = v[b];
}

/* columns: the wrench of composite j under unit motion of joint j
 * (revolute: F = z x MS, N = J z; prismatic: F = M z, N = MS x z), H_jj =
 * its component along z_j + IA_j, then carried down to each joint i < j
 * and projected on its axis: H_ij = H_ji = n_z (revolute i) or f_z */
CRBA_INL void crba_columns(const dyModel* m, const double* par, dyBatch* restrict W,
                           double* restrict H, size_t ld, int nb) {
  const int n = m->n;
  double F[3][B], N[3][B], h[B];
  for (int j = 0; j < n; j++) {
    const double IA = par[DY_NPAR_LINK*n + DY_NPAR_JNT*j + DY_IA];
    if (m->jnt_type[j] == DY_REVOLUTE)
      for (int b = 0; b < B; b++) {
        F[0][b] = -W->comp[j][7][b]; F[1][b] = W->comp[j][6][b]; F[2][b] = 0;
        N[0][b] = W->comp[j][2][b]; N[1][b] = W->comp[j][4][b]; N[2][b] = W->comp[j][5][b];
        h[b] = N[2][b] + IA;
      }
    else
      for (int b = 0; b < B; b++) {
        F[0][b] = 0; F[1][b] = 0; F[2][b] = W->comp[j][9][b];
        N[0][b] = W->comp[j][7][b]; N[1][b] = -W->comp[j][6][b]; N[2][b] = 0;
        h[b] = F[2][b] + IA;
      }
    put_entry(H, ld, j*n + j, h, nb);
    for (int i = j; i > 0; i--) {
      const double ca = m->cos_alpha[i], sa = m->sin_alpha[i], p0 = m->dh_a[i];
      for (int b = 0; b < B; b++) carry_lane(W, F, N, i, b, ca, sa, p0);
      double (*hv)[B] = m->jnt_type[i-1] == DY_REVOLUTE ? N : F;
      put_entry(H, ld, (i-1)*n + j, hv[2], nb);
      put_entry(H, ld, j*n + (i-1), hv[2], nb);
    }
  }
}

/* H of the chunk in W (q loaded) into H[e*ld + b], entry e = r n + c,
 * lanes 0..nb-1; the stages are inlined into each ISA variant */
DY_CLONES
static void crba_chunk(const dyModel* m, const double* par, dyBatch* restrict W, double* H,
                       size_t ld, int nb) {
  dy_frames_batch(m, W, nb);
  crba_composite(m, par, W);
  crba_columns(m, par, W, H, ld, nb);
}

void dy_crba_batch(const dyModel* m, dyBatch* w, const double* par, int K, const double* q,
                   double* H) {
  const int n = m->n;
  for (int k0 = 0; k0 < K; k0 += B) {
    const int nb = K - k0 < B ? K - k0 : B;
    dy_batch_load(m, w, nb, q + k0, NULL, NULL, K);
    crba_chunk(m, par, w, H + k0, (size_t)K, nb);
    for (int c = 0; c < m->nmot; c++) {   /* the coupled motors' IAMk R_k^T R_k */
      const double* Rk = m->trans + n*m->mot_k[c];
      const double ia = par[DY_NPL*n + DY_NPAR_MOT*c + DY_IAM];
      for (int e = 0; e < n*n; e++)
        for (int b = 0; b < nb; b++) H[(size_t)e*(size_t)K + (size_t)(k0 + b)] += ia * Rk[e / n] * Rk[e % n];
    }
  }
}
