/* SPDX-License-Identifier: MIT */
/* dynid verify: the base-parameter Newton-Euler for many states per call
 * (ne_base.h, dyv_nebase_rnea_batch).
 *
 * States in chunks of DY_BATCH_LANES (8), as core/batch.c: cos, sin theta
 * of a chunk's 8 lanes come from dyu_sincos8 into the dyBatch scratch, and
 * the recursion then runs on NBB_V lanes at a time in vector registers:
 * every quantity of ne_base.c (w, wd, u = vd + U p, U, the wrench carried
 * down) is a vector of NBB_V lanes (the GCC/Clang vector extension), each
 * joint's whole step, forward and backward, one pass over those lanes,
 * its operands kept in registers from one joint to the next; only F_j,
 * N_j (read back by the backward pass) go through memory. A full chunk
 * with qd and qdd reads q, qd, qdd from the caller's arrays and writes tau
 * there (joint j's lanes are contiguous: q + j K + k0); a short one goes
 * through the padded copy in dyBatch. The kernel is built once per vector
 * width (below: 8 lanes for x86-64-v4, 4 for AVX2, 2 otherwise), chosen at
 * run time.
 *
 * What the plan knows is decided per joint and pass, by branches that do
 * not depend on the lane (one predictable branch per term, the same in
 * every chunk): the twist class (each class gets its own copy of the
 * joint's step, with exact signed permutations for the special ones, the
 * arithmetic of kernels.h dyv_rot_t and friends), the structurally zero
 * parameters (a term of a zero parameter is never formed), the zero
 * components of p_j and of MS_j (the columns of U nobody reads are not
 * formed), the joint terms of a joint without friction, joint 1's trig
 * when nothing reads it. Each lane performs the operations of
 * dyv_nebase_rnea in the same order (its generic step, whose terms its
 * compiled kinds select as well), with the same first assignments of the
 * wrench sums, and the coupled motors' torque is added into tau as it
 * adds it, so tau equals dyv_nebase_rnea's state by state, bit for bit
 * (tests/test_nebase_batch.c checks every width the processor runs). */
#ifndef NBB_V   /* ---------------- the file itself */

/* no fused multiply-adds, as in the rest of the library (-std=c11 keeps
 * GCC from contracting; Clang contracts within an expression by default,
 * and x86-64-v4 has FMA), dyu_sincos8 of core/mathu.h included: the lanes
 * do dyv_nebase_rnea's operations */
#ifdef __clang__
#pragma clang fp contract(off)
#endif
#include "verify/ne_base.h"
#include "verify/kernels.h"
#include "core/transmission.h"
#include "core/dynamics.h"
#include "core/util.h"
#include "core/mathu.h"
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define B DY_BATCH_LANES
#define NBB_INL static inline __attribute__((always_inline))

/* a chunk's states: joint j of lane b at q[j ld + b] (likewise qd, qdd,
 * tau): the caller's arrays (ld = K) or the padded copy in dyBatch (ld = 8) */
typedef struct { const double *q, *qd, *qdd; double* tau; size_t ld; } nbbIO;
#define NBB_IO(a, j, b) (a)[(size_t)(j) * io.ld + (size_t)(b)]
#define NBB_AT(a, j, h) ((a) + (size_t)(j) * io->ld + (size_t)(h))

/* joint frames of the chunk: cos, sin theta_j of all 8 lanes
 * (dyu_sincos8 of theta_0 + q, as ne_base.c; a prismatic joint's are the
 * plan's constants; joint 1's are skipped when the plan says nothing reads
 * them; padding lanes hold the zero state) */
NBB_INL void nbb_frames(const dyvNeBase* pl, dyBatch* restrict W, const nbbIO* io) {
  const dyModel* m = pl->m;
  for (int j = 0; j < pl->n; j++) {
    if (m->jnt_type[j] != DY_REVOLUTE)
      for (int b = 0; b < B; b++) { W->ct[j][b] = pl->ctc[j]; W->st[j][b] = pl->stc[j]; }
    else if (j > 0 || pl->trig0) {
      double th[B];
      const double th0 = m->dh_theta[j];
      for (int b = 0; b < B; b++) th[b] = th0 + NBB_AT(io->q, j, 0)[b];
      dyu_sincos8(W->st[j], W->ct[j], th);
    }
  }
}

/* ---------------- the chunk kernel, once per vector width
 * This file includes itself below, once per width, with NBB_V (lanes per
 * vector), NBB_(name) (the variant's name of every type and function of
 * the kernel) and NBB_TARGET (its instruction set) defined: the vector
 * type's width is fixed at compile time, and the best one differs by
 * instruction set (8 lanes: one AVX-512 register, 32 of them, 1.7-1.8x
 * dy_rnea_batch on a Zen 4, built for all of x86-64-v4, 3 % faster than
 * for AVX-512F alone; 4 lanes: one AVX2
 * register, 16 of them, where 8-lane vectors spill and run 5x slower; 2
 * lanes: SSE2 and other targets). nbb_pick chooses at run time. */
#if defined(__x86_64__) && !defined(DY_BATCH_NO_CLONES) && defined(__GNUC__)
#define NBB_MULTI 1
#define NBB_V 8
#define NBB_(name) name##_v8
#define NBB_TARGET __attribute__((target("arch=x86-64-v4")))
#include "verify/ne_base_batch.c"
#define NBB_V 4
#define NBB_(name) name##_v4
#define NBB_TARGET __attribute__((target("avx2")))
#include "verify/ne_base_batch.c"
#define NBB_V 2
#define NBB_(name) name##_v2
#define NBB_TARGET
#include "verify/ne_base_batch.c"
#else   /* one variant for the compiler's flags */
#if defined(__AVX512F__) && defined(__AVX512VL__)
#define NBB_V1 8   /* (its width, kept past the kernel's #undef NBB_V) */
#elif defined(__AVX__)
#define NBB_V1 4
#else
#define NBB_V1 2
#endif
#define NBB_V NBB_V1
#define NBB_(name) name##_v
#define NBB_TARGET
#include "verify/ne_base_batch.c"
#endif

typedef void (*nbbKernel)(const dyvNeBase* pl, const double* par, dyBatch* restrict W,
                          const nbbIO* io);

/* the kernel variants this processor runs, best first, into out (up to 3),
 * their widths into lanes; returns how many */
static int nbb_variants(nbbKernel out[3], int lanes[3]) {
  int nv = 0;
#ifdef NBB_MULTI
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("fma")) {   /* x86-64-v4 */
    out[nv] = nbb_chunk_v8; lanes[nv++] = 8;
  }
  if (__builtin_cpu_supports("avx2")) { out[nv] = nbb_chunk_v4; lanes[nv++] = 4; }
  out[nv] = nbb_chunk_v2; lanes[nv++] = 2;
#else
  out[nv] = nbb_chunk_v; lanes[nv++] = NBB_V1;
#endif
  return nv;
}

/* the kernel variant for this processor (looked up once: the validator
 * calls with 8 states at a time; threads racing here store the same) */
static nbbKernel nbb_pick(void) {
  static nbbKernel chosen;
  nbbKernel k = __atomic_load_n(&chosen, __ATOMIC_RELAXED);
  if (!k) {
    nbbKernel all[3];
    int lanes[3];
    nbb_variants(all, lanes);
    k = all[0];
    __atomic_store_n(&chosen, k, __ATOMIC_RELAXED);
  }
  return k;
}

/* 1 if the n doubles at a and at b do not overlap (NULL: apart) */
static int nbb_apart(const double* a, const double* b, size_t n) {
  const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b, len = n * sizeof(double);
  return !a || !b || x + len <= y || y + len <= x;
}

/* dyv_nebase_rnea_batch by the kernel variant kern. A full chunk with qd
 * and qdd given is read from the caller's arrays and written to tau in
 * place (no copy: lanes h.. of joint j are contiguous at q + j K + k0 + h),
 * unless tau overlaps an input; a short chunk or a NULL qd, qdd goes
 * through the padded copy in w (dy_batch_load) and w->tau. */
static void nbb_batch(nbbKernel kern, const dyvNeBase* plan, dyBatch* w, const double* par, int K,
                      const double* q, const double* qd, const double* qdd, double* tau) {
  const int n = plan->n;
  if (n <= 0 || K <= 0) return;
  const size_t len = (size_t)n * (size_t)K;
  const int apart = nbb_apart(tau, q, len) && nbb_apart(tau, qd, len) && nbb_apart(tau, qdd, len);
  for (int k0 = 0; k0 < K; k0 += B) {
    const int nb = K - k0 < B ? K - k0 : B, direct = nb == B && qd && qdd && apart;
    nbbIO io = {w->q[0], w->qd[0], w->qdd[0], w->tau[0], B};
    if (direct) io = (nbbIO){q + k0, qd + k0, qdd + k0, tau + k0, (size_t)K};
    else dy_batch_load(plan->m, w, nb, q + k0, qd ? qd + k0 : NULL, qdd ? qdd + k0 : NULL, K);
    kern(plan, par, w, &io);
    for (int b = 0; b < nb && plan->m->nmot; b++) {   /* the coupled motors, lane by lane */
      double qd1[DY_MAXJ], qdd1[DY_MAXJ], t1[DY_MAXJ];   /* (added as dyv_nebase_rnea adds them) */
      for (int j = 0; j < n; j++) {
        qd1[j] = NBB_IO(io.qd, j, b); qdd1[j] = NBB_IO(io.qdd, j, b); t1[j] = NBB_IO(io.tau, j, b);
      }
      dy_motor_tau(plan->m, par, qd1, qdd1, t1);
      for (int j = 0; j < n; j++) NBB_IO(io.tau, j, b) = t1[j];
    }
    if (!direct)
      for (int j = 0; j < n; j++)
        for (int b = 0; b < nb; b++) tau[(size_t)j*(size_t)K + (size_t)k0 + (size_t)b] = w->tau[j][b];
  }
}

void dyv_nebase_rnea_batch(const dyvNeBase* plan, dyBatch* w, const double* par, int K,
                           const double* q, const double* qd, const double* qdd, double* tau) {
  nbb_batch(nbb_pick(), plan, w, par, K, q, qd, qdd, tau);
}
#undef B   /* (a file that includes this one may use the name) */
#else   /* ---------------- the kernel for NBB_V lanes per vector (included above) */

_Static_assert(B % NBB_V == 0, "a chunk is whole vectors");
/* the kernel's helpers, inlined, and built for its instruction set */
#define NBB_VINL static inline __attribute__((always_inline)) NBB_TARGET
/* this variant's names (function-like for the functions: io->ld and
 * W->st are members) */
#define nbv NBB_(nbv)
#define nbm NBB_(nbm)
#define nbv3 NBB_(nbv3)
#define nbbCS NBB_(nbbCS)
#define nbbFwd NBB_(nbbFwd)
#define ld(...) NBB_(ld)(__VA_ARGS__)
#define st(...) NBB_(st)(__VA_ARGS__)
#define splat(...) NBB_(splat)(__VA_ARGS__)
#define ld3(...) NBB_(ld3)(__VA_ARGS__)
#define st3(...) NBB_(st3)(__VA_ARGS__)
#define rot_t(...) NBB_(rot_t)(__VA_ARGS__)
#define rot_n(...) NBB_(rot_n)(__VA_ARGS__)
#define rot_t_z(...) NBB_(rot_t_z)(__VA_ARGS__)
#define rot_n_z(...) NBB_(rot_n_z)(__VA_ARGS__)
#define nbb_p(...) NBB_(nbb_p)(__VA_ARGS__)
#define nbb_wrench(...) NBB_(nbb_wrench)(__VA_ARGS__)
#define nbb_fwd(...) NBB_(nbb_fwd)(__VA_ARGS__)
#define nbb_link1(...) NBB_(nbb_link1)(__VA_ARGS__)
#define nbb_tau(...) NBB_(nbb_tau)(__VA_ARGS__)
#define nbb_bwd(...) NBB_(nbb_bwd)(__VA_ARGS__)
#define nbb_joint1(...) NBB_(nbb_joint1)(__VA_ARGS__)
#define nbb_lanes(...) NBB_(nbb_lanes)(__VA_ARGS__)
#define nbb_chunk(...) NBB_(nbb_chunk)(__VA_ARGS__)

/* NBB_V lanes of one quantity, and the comparison result of two */
typedef double nbv __attribute__((vector_size(NBB_V * sizeof(double))));
typedef long long nbm __attribute__((vector_size(NBB_V * sizeof(long long))));
/* a 3-vector of NBB_V lanes */
typedef struct { nbv x, y, z; } nbv3;

NBB_VINL nbv ld(const double* p) { nbv v; memcpy(&v, p, sizeof v); return v; }
NBB_VINL void st(double* p, const nbv* v) { memcpy(p, v, sizeof *v); }
NBB_VINL nbv splat(double x) { return x - (nbv){0}; }   /* (x - +0 = x, -0 included) */
/* a [3][B] block's lanes h.. (a: its first entry) */
NBB_VINL nbv3 ld3(const double* a, int h) { return (nbv3){ld(a + h), ld(a + B + h), ld(a + 2*B + h)}; }
NBB_VINL void st3(double (*a)[B], int h, const nbv3* v) { st(a[0] + h, &v->x); st(a[1] + h, &v->y); st(a[2] + h, &v->z); }

/* cos, sin theta_j of NBB_V lanes (the helpers take vectors by address:
 * nothing depends on a calling convention for vectors) */
typedef struct { nbv c, s; } nbbCS;

/* r = R^T v, R = Rx(alpha) Rz(theta), twist class k (kernels.h dyv_rot_t) */
NBB_VINL nbv3 rot_t(const nbv3* pv, const nbbCS* cs, int k, double ca, double sa) {
  const nbv3 v = *pv;
  const nbv ct = cs->c, st_ = cs->s;
  nbv u1, u2;
  switch (k) {
    case DY_TWIST_0: u1 = v.y; u2 = v.z; break;
    case DY_TWIST_PI2: u1 = v.z; u2 = -v.y; break;
    case DY_TWIST_MPI2: u1 = -v.z; u2 = v.y; break;
    case DY_TWIST_PI: u1 = -v.y; u2 = -v.z; break;
    default: u1 = ca*v.y + sa*v.z; u2 = ca*v.z - sa*v.y;
  }
  return (nbv3){ct*v.x + st_*u1, ct*u1 - st_*v.x, u2};
}

/* r = R v (kernels.h dyv_rot_n) */
NBB_VINL nbv3 rot_n(const nbv3* pv, const nbbCS* cs, int k, double ca, double sa) {
  const nbv3 v = *pv;
  const nbv ct = cs->c, st_ = cs->s;
  const nbv u0 = ct*v.x - st_*v.y, u1 = st_*v.x + ct*v.y, u2 = v.z;
  switch (k) {
    case DY_TWIST_0: return (nbv3){u0, u1, u2};
    case DY_TWIST_PI2: return (nbv3){u0, -u2, u1};
    case DY_TWIST_MPI2: return (nbv3){u0, u2, -u1};
    case DY_TWIST_PI: return (nbv3){u0, -u1, -u2};
    default: return (nbv3){u0, ca*u1 - sa*u2, sa*u1 + ca*u2};
  }
}

/* r = R^T (0, 0, v2) (kernels.h dyv_rot_t_z) */
NBB_VINL nbv3 rot_t_z(const nbv* pv2, const nbbCS* cs, int k, double ca, double sa) {
  const nbv v2 = *pv2, ct = cs->c, st_ = cs->s;
  const nbv z = {0};
  nbv u1, u2;
  switch (k) {
    case DY_TWIST_0: return (nbv3){z, z, v2};
    case DY_TWIST_PI: return (nbv3){z, z, -v2};
    case DY_TWIST_PI2: u1 = v2; u2 = z; break;
    case DY_TWIST_MPI2: u1 = -v2; u2 = z; break;
    default: u1 = sa*v2; u2 = ca*v2;
  }
  return (nbv3){st_*u1, ct*u1, u2};
}

/* (R v)_z (kernels.h dyv_rot_n_z) */
NBB_VINL nbv rot_n_z(const nbv3* pv, const nbbCS* cs, int k, double ca, double sa) {
  const nbv3 v = *pv;
  const nbv ct = cs->c, st_ = cs->s;
  switch (k) {
    case DY_TWIST_0: return v.z;
    case DY_TWIST_PI: return -v.z;
    case DY_TWIST_PI2: return st_*v.x + ct*v.y;
    case DY_TWIST_MPI2: return -(st_*v.x + ct*v.y);
    default: return sa*(st_*v.x + ct*v.y) + ca*v.z;
  }
}

/* p_j = (a, -sa d, ca d) in frame j-1 of lanes h..: the plan's constant
 * for a revolute joint; for a prismatic one d = d0 + q_j, its y, z only
 * where the plan's flags have them (else 0), as ne_base.c nb_p */
NBB_VINL nbv3 nbb_p(const dyvNeBase* pl, const nbbIO* io, int j, int h) {
  const dyModel* m = pl->m;
  const double* pc = pl->pc + 3*j;
  if (m->jnt_type[j] == DY_REVOLUTE) return (nbv3){splat(pc[0]), splat(pc[1]), splat(pc[2])};
  double ca, sa;
  dyv_twist_cs(m, j, &ca, &sa);
  const nbv dj = m->dh_d[j] + ld(NBB_AT(io->q, j, h)), z = {0};
  return (nbv3){splat(m->dh_a[j]), pl->flags[j] & DYV_NB_PY ? -sa*dj : z,
                pl->flags[j] & DYV_NB_PZ ? ca*dj : z};
}

/* the forward state carried from link to link (ne_base.c nb_forward):
 * w, wd of the link and u = vd + U p of the next, frame of the link */
typedef struct { nbv3 w, wd, u; } nbbFwd;

/* The wrench of link j (flags f) into W->F[j], W->N[j]: F = M vd + U MS,
 * N = J wd + w x J w + MS x vd, the terms of ne_base.c nb_wrench in its
 * order (the first term of a sum assigned); U: the columns MS reads, wp:
 * w_x w_y, w_x w_z, w_y w_z. */
NBB_VINL void nbb_wrench(dyBatch* restrict W, int j, int h, int f, const double* pl10,
                        const nbv3* pw, const nbv3* pwd, const nbv3* pvd, const nbv U[9],
                        const nbv wp[3]) {
  const nbv3 w = *pw, wd = *pwd, vd = *pvd;
  const nbv w01 = wp[0], w02 = wp[1], w12 = wp[2];
  const nbv z = {0};
  nbv F[3] = {z, z, z}, N[3] = {z, z, z};
  int fset = 0, nset = 0;
  if (f & DYV_NB_M) {
    const double M = pl10[DY_M];
    F[0] = M*vd.x; F[1] = M*vd.y; F[2] = M*vd.z;
    fset = 1;
  }
  if (f & DYV_NB_J) {
    const double XX = pl10[DY_XX], YY = f & DYV_NB_YY ? pl10[DY_YY] : 0, ZZ = pl10[DY_ZZ];
    if (f & DYV_NB_JOFF) {
      const double XY = pl10[DY_XY], XZ = pl10[DY_XZ], YZ = pl10[DY_YZ];
      nbv jw1 = XY*w.x + YZ*w.z, jd1 = XY*wd.x + YZ*wd.z;
      if (f & DYV_NB_YY) { jw1 += YY*w.y; jd1 += YY*wd.y; }
      const nbv jw0 = XX*w.x + XY*w.y + XZ*w.z, jw2 = XZ*w.x + YZ*w.y + ZZ*w.z;
      N[0] = XX*wd.x + XY*wd.y + XZ*wd.z + (w.y*jw2 - w.z*jw1);
      N[1] = jd1 + (w.z*jw0 - w.x*jw2);
      N[2] = XZ*wd.x + YZ*wd.y + ZZ*wd.z + (w.x*jw1 - w.y*jw0);
    } else {   /* diagonal J: w x J w from the products of U */
      N[0] = XX*wd.x + (ZZ - YY)*w12;
      N[1] = YY*wd.y + (XX - ZZ)*w02;
      N[2] = ZZ*wd.z + (YY - XX)*w01;
    }
    nset = 1;
  }
  /* U MS and MS x vd per nonzero component k of MS:
   * (e_k x v)_{k+1} = -v_{k+2}, (e_k x v)_{k+2} = v_{k+1} (indices mod 3) */
  const nbv vv[3] = {vd.x, vd.y, vd.z};
#define NBB_MS_TERM(k, i1, i2) \
  if (f & (DYV_NB_MSX << (k))) { \
    const double x = pl10[DY_MX + (k)]; \
    if (fset) { F[0] += U[k]*x; F[1] += U[3+(k)]*x; F[2] += U[6+(k)]*x; } \
    else { F[0] = U[k]*x; F[1] = U[3+(k)]*x; F[2] = U[6+(k)]*x; } \
    if (nset) { N[i1] -= x*vv[i2]; N[i2] += x*vv[i1]; } \
    else { N[i1] = -(x*vv[i2]); N[i2] = x*vv[i1]; } \
    fset = nset = 1; \
  }
  NBB_MS_TERM(0, 1, 2)
  NBB_MS_TERM(1, 2, 0)
  NBB_MS_TERM(2, 0, 1)
#undef NBB_MS_TERM
  (void)fset; (void)nset;
  const nbv3 Fo = {F[0], F[1], F[2]}, No = {N[0], N[1], N[2]};
  st3(W->F[j], h, &Fo);
  st3(W->N[j], h, &No);
}

/* one link of the forward pass on lanes h.. (ne_base.c nb_fwd, twist class
 * k a constant): the parent's rates and u rotated into frame j, then
 *   revolute   w = R^T w' + qd z,  wd = R^T wd' + (R^T w') x qd z + qdd z
 *   prismatic  w = R^T w',  wd = R^T wd',  vd += 2 (R^T w') x qd z + qdd z
 * U = [wd x] + [w x]^2 (the columns read), the wrench, u = vd + U p_{j+1} */
NBB_VINL void nbb_fwd(const dyvNeBase* pl, const double* par, dyBatch* restrict W, const nbbIO* io,
                     int j, int h, int k, nbbFwd* s) {
  const dyModel* m = pl->m;
  const int f = pl->flags[j], fn = j + 1 < pl->n ? pl->flags[j+1] : 0;
  const double ca = m->cos_alpha[j], sa = m->sin_alpha[j];
  const nbbCS cs = {ld(W->ct[j] + h), ld(W->st[j] + h)};
  const nbv qdj = ld(NBB_AT(io->qd, j, h)), qddj = ld(NBB_AT(io->qdd, j, h));
  nbv3 vd = rot_t(&s->u, &cs, k, ca, sa);
  const nbv3 wr = rot_t(&s->w, &cs, k, ca, sa), wdr = rot_t(&s->wd, &cs, k, ca, sa);
  nbv3 w = wr, wd = wdr;
  if (m->jnt_type[j] == DY_REVOLUTE) {
    w.z = wr.z + qdj;
    wd.x = wdr.x + wr.y*qdj; wd.y = wdr.y - wr.x*qdj; wd.z = wdr.z + qddj;
  } else {
    const nbv q2 = 2*qdj;
    vd.x += q2*wr.y; vd.y -= q2*wr.x; vd.z += qddj;
  }
  const int uc = ((f >> 1) | (fn >> 6)) & 7;   /* MS_k of link j or p_k of link j+1 */
  const nbv w01 = w.x*w.y, w02 = w.x*w.z, w12 = w.y*w.z, z = {0};
  nbv U[9] = {z, z, z, z, z, z, z, z, z};
  if (uc) {
    const nbv w00 = w.x*w.x, w11 = w.y*w.y, w22 = w.z*w.z;
    if (uc & 1) { U[0] = -w11 - w22;  U[3] = w01 + wd.z; U[6] = w02 - wd.y; }
    if (uc & 2) { U[1] = w01 - wd.z; U[4] = -w00 - w22;  U[7] = w12 + wd.x; }
    if (uc & 4) { U[2] = w02 + wd.y; U[5] = w12 - wd.x; U[8] = -w00 - w11; }
  }
  const nbv wp[3] = {w01, w02, w12};
  nbb_wrench(W, j, h, f, par + DY_NPAR_LINK*j, &w, &wd, &vd, U, wp);
  s->w = w; s->wd = wd; s->u = vd;
  if (fn & DYV_NB_P) {
    const nbv3 p = nbb_p(pl, io, j + 1, h);
    if (fn & DYV_NB_PX) { s->u.x += U[0]*p.x; s->u.y += U[3]*p.x; s->u.z += U[6]*p.x; }
    if (fn & DYV_NB_PY) { s->u.x += U[1]*p.y; s->u.y += U[4]*p.y; s->u.z += U[7]*p.y; }
    if (fn & DYV_NB_PZ) { s->u.x += U[2]*p.z; s->u.y += U[5]*p.z; s->u.z += U[8]*p.z; }
  }
}

/* link 1 on a revolute joint 1 (ne_base.c nb_link1, class k): w, wd along
 * z_0, vd_1 = R^T (-g) (R^T (0, 0, -g_z) when g is along z_0), only
 * N_z = ZZ qdd + MX vd_y - MY vd_x (its force and other moments reach no
 * joint), u = vd_1 + U_1 p_2 with
 * U_1 = [[-qd^2, -qdd, 0], [qdd, -qd^2, 0], [0, 0, 0]] */
NBB_VINL void nbb_link1(const dyvNeBase* pl, const double* par, dyBatch* restrict W,
                       const nbbIO* io, int h, int k, nbbFwd* s) {
  const dyModel* m = pl->m;
  const int f = pl->flags[0];
  const double ca = m->cos_alpha[0], sa = m->sin_alpha[0];
  const nbv z = {0};
  const nbbCS cs = {pl->trig0 ? ld(W->ct[0] + h) : splat(1), pl->trig0 ? ld(W->st[0] + h) : z};
  const nbv qd0 = ld(NBB_AT(io->qd, 0, h)), qdd0 = ld(NBB_AT(io->qdd, 0, h));
  nbv3 vd = pl->g[0] == 0 && pl->g[1] == 0 ? rot_t_z(&s->u.z, &cs, k, ca, sa)
                                           : rot_t(&s->u, &cs, k, ca, sa);
  s->w = (nbv3){z, z, qd0}; s->wd = (nbv3){z, z, qdd0};
  nbv nz = z;
  if (f & DYV_NB_J) nz = par[DY_ZZ]*qdd0;
  if (f & DYV_NB_MSX) nz += par[DY_MX]*vd.y;
  if (f & DYV_NB_MSY) nz -= par[DY_MY]*vd.x;
  const nbv3 N0 = {z, z, nz}, F0 = {z, z, z};
  st3(W->N[0], h, &N0);
  st3(W->F[0], h, &F0);
  if (pl->n > 1) {
    const int fn = pl->flags[1];
    if (fn & (DYV_NB_PX | DYV_NB_PY)) {
      const nbv3 p = nbb_p(pl, io, 1, h);
      const nbv q2 = qd0*qd0;
      if (fn & DYV_NB_PX) { vd.x -= q2*p.x; vd.y += qdd0*p.x; }
      if (fn & DYV_NB_PY) { vd.x -= qdd0*p.y; vd.y -= q2*p.y; }
    }
  }
  s->u = vd;
}

/* tau_j on lanes h.. (ne_base.c nb_tau): z . n (revolute) or z . f
 * (prismatic) of the carried wrench, + IA qdd + FV qd + FC sign(qd) + FO
 * where the joint has friction */
NBB_VINL void nbb_tau(const dyvNeBase* pl, const double* par, const nbbIO* io, int j, int h,
                     const nbv3* f, const nbv3* nn) {
  nbv t = pl->m->jnt_type[j] == DY_REVOLUTE ? nn->z : f->z;
  if (pl->flags[j] & DYV_NB_FRIC) {
    const double* pj = par + DY_NPAR_LINK*pl->n + DY_NPAR_JNT*j;
    const nbv qdj = ld(NBB_AT(io->qd, j, h)), qddj = ld(NBB_AT(io->qdd, j, h)), z = {0}, one = splat(1);
    /* sign(qd): the bits of 1.0 where qd > 0, minus where qd < 0 */
    const nbv sg = (nbv)((nbm)(qdj > z) & (nbm)one) - (nbv)((nbm)(qdj < z) & (nbm)one);
    t += pj[DY_IA]*qddj + pj[DY_FV]*qdj + pj[DY_FC]*sg + pj[DY_FO];
  }
  st(NBB_AT(io->tau, j, h), &t);
}

/* one link of the backward pass on lanes h.. (ne_base.c nb_bwd, class k
 * of joint j): f = F_{j-1} + R f, nn = N_{j-1} + R nn + p_j x R f, the
 * components p_j has only */
NBB_VINL void nbb_bwd(const dyvNeBase* pl, const dyBatch* restrict W, const nbbIO* io, int j, int h,
                     int k, nbv3* f, nbv3* nn) {
  const double ca = pl->m->cos_alpha[j], sa = pl->m->sin_alpha[j];
  const nbbCS cs = {ld(W->ct[j] + h), ld(W->st[j] + h)};
  const nbv3 rf = rot_n(f, &cs, k, ca, sa), rn = rot_n(nn, &cs, k, ca, sa);
  const nbv3 Fp = ld3(W->F[j-1][0], h), Np = ld3(W->N[j-1][0], h);
  *f = (nbv3){Fp.x + rf.x, Fp.y + rf.y, Fp.z + rf.z};
  *nn = (nbv3){Np.x + rn.x, Np.y + rn.y, Np.z + rn.z};
  const int fl = pl->flags[j];
  if (!(fl & DYV_NB_P)) return;
  const nbv3 p = nbb_p(pl, io, j, h);
  if (fl & DYV_NB_PX) { nn->y -= p.x*rf.z; nn->z += p.x*rf.y; }
  if (fl & DYV_NB_PY) { nn->x += p.y*rf.z; nn->z -= p.y*rf.x; }
  if (fl & DYV_NB_PZ) { nn->x -= p.z*rf.y; nn->y += p.z*rf.x; }
}

/* joint 2 below a revolute joint 1 (ne_base.c nb_joint1): only the z moment
 * is passed on, nn_z = N_z + (R nn)_z (+ p0 (R f)_y - p1 (R f)_x) */
NBB_VINL void nbb_joint1(const dyvNeBase* pl, const dyBatch* restrict W, const nbbIO* io, int h,
                        int k, const nbv3* f, nbv3* nn) {
  const double ca = pl->m->cos_alpha[1], sa = pl->m->sin_alpha[1];
  const nbbCS cs = {ld(W->ct[1] + h), ld(W->st[1] + h)};
  nn->z = ld(W->N[0][2] + h) + rot_n_z(nn, &cs, k, ca, sa);
  if (pl->flags[1] & (DYV_NB_PX | DYV_NB_PY)) {
    const nbv3 rf = rot_n(f, &cs, k, ca, sa), p = nbb_p(pl, io, 1, h);
    nn->z += p.x*rf.y - p.y*rf.x;
  }
}

/* The recursion on lanes h..h+NBB_V-1 of the chunk in W (frames done),
 * tau into W->tau: the base at rest accelerating at -g, link 1 of a
 * revolute joint 1 by nbb_link1, the other links by nbb_fwd; backward,
 * joints n-1 .. 2 (or 1) pass their wrench down by nbb_bwd, below a
 * revolute joint 1 joint 2 passes only the z moment (nbb_joint1). Each
 * step is compiled once per twist class (DYV_BY_TWIST). */
NBB_VINL void nbb_lanes(const dyvNeBase* pl, const double* par, dyBatch* restrict W, const nbbIO* io,
                       int h) {
  const dyModel* m = pl->m;
  const int n = pl->n, rev0 = m->jnt_type[0] == DY_REVOLUTE, jb = rev0 ? 1 : 0;
  const nbv z = {0};
  nbbFwd s = {{z, z, z}, {z, z, z}, {splat(-pl->g[0]), splat(-pl->g[1]), splat(-pl->g[2])}};
#define NBB_L1_(k, b_) nbb_link1(pl, par, W, io, h, k, &s)
  if (rev0) DYV_BY_TWIST(m->twist[0], NBB_L1_)
#undef NBB_L1_
  for (int j = jb; j < n; j++) {
#define NBB_FWD_(k, b_) nbb_fwd(pl, par, W, io, j, h, k, &s)
    DYV_BY_TWIST(m->twist[j], NBB_FWD_)
#undef NBB_FWD_
  }
  nbv3 f = ld3(W->F[n-1][0], h), nn = ld3(W->N[n-1][0], h);
  for (int j = n - 1; j > jb; j--) {
    nbb_tau(pl, par, io, j, h, &f, &nn);
#define NBB_BWD_(k, b_) nbb_bwd(pl, W, io, j, h, k, &f, &nn)
    DYV_BY_TWIST(m->twist[j], NBB_BWD_)
#undef NBB_BWD_
  }
  if (rev0 && n > 1) {
    nbb_tau(pl, par, io, 1, h, &f, &nn);
#define NBB_J1_(k, b_) nbb_joint1(pl, W, io, h, k, &f, &nn)
    DYV_BY_TWIST(m->twist[1], NBB_J1_)
#undef NBB_J1_
  }
  nbb_tau(pl, par, io, 0, h, &f, &nn);
}

/* the base-parameter Newton-Euler of one chunk: io's 8 states into io->tau */
NBB_TARGET
static void nbb_chunk(const dyvNeBase* pl, const double* par, dyBatch* restrict W, const nbbIO* io) {
  nbb_frames(pl, W, io);
  for (int h = 0; h < B; h += NBB_V) nbb_lanes(pl, par, W, io, h);
}

#undef nbv
#undef nbm
#undef nbv3
#undef nbbCS
#undef nbbFwd
#undef ld
#undef st
#undef splat
#undef ld3
#undef st3
#undef rot_t
#undef rot_n
#undef rot_t_z
#undef rot_n_z
#undef nbb_p
#undef nbb_wrench
#undef nbb_fwd
#undef nbb_link1
#undef nbb_tau
#undef nbb_bwd
#undef nbb_joint1
#undef nbb_lanes
#undef nbb_chunk
#undef NBB_V
#undef NBB_
#undef NBB_TARGET
#undef NBB_VINL
#endif
