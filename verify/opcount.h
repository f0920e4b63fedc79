/* dynid verify: counting the arithmetic the efficient algorithms execute.
 *
 * Scheme. The algorithms of lin91.c and ne_base.c do their floating-point
 * work either through the small helpers below (which know their own cost)
 * or in plain scalar statements followed by DYV_OPS(M, A) giving the
 * multiplications and additions/subtractions of that statement (a
 * subtraction or negation-in-sum counts as an addition, a pure sign change
 * or a copy counts nothing, a division counts as a multiplication,
 * sin/cos as neither: they are reported separately by the papers).
 * Ordinary builds define DYV_OPS as nothing, so the fast path is untouched.
 * verify/opcount.c defines DYV_COUNT_OPS and includes the two algorithm
 * files again: that object holds the counting twins (names with the suffix
 * _ops, via DYV_FN) which add to the counters dyv_nmul and dyv_nadd. The
 * counts are therefore of the code paths executed for a given model (joint
 * types, geometry and structurally zero parameters), not of a formula. */
#ifndef DYNID_OPCOUNT_H
#define DYNID_OPCOUNT_H

#include <math.h>
#include <stdio.h>
#include "model.h"
#include "renaud.h"

#ifdef DYV_COUNT_OPS
extern long dyv_nmul, dyv_nadd;
#define DYV_OPS(mul, add) (dyv_nmul += (mul), dyv_nadd += (add))
#define DYV_FN(name) name##_ops
#else
#define DYV_OPS(mul, add) ((void)0)
#define DYV_FN(name) name
#endif

/* counting 3-vector helpers (counts: cross 6M 3A, addCross 6M 6A, dot 3M 2A) */
static inline void dyv_cross(double r[3], const double a[3], const double b[3]) {
  r[0] = a[1]*b[2] - a[2]*b[1]; r[1] = a[2]*b[0] - a[0]*b[2]; r[2] = a[0]*b[1] - a[1]*b[0];
  DYV_OPS(6, 3);
}
static inline void dyv_addCross(double r[3], const double a[3], const double b[3]) {
  r[0] += a[1]*b[2] - a[2]*b[1]; r[1] += a[2]*b[0] - a[0]*b[2]; r[2] += a[0]*b[1] - a[1]*b[0];
  DYV_OPS(6, 6);
}
static inline double dyv_dot(const double a[3], const double b[3]) {
  DYV_OPS(3, 2);
  return a[0]*b[0] + a[1]*b[1] + a[2]*b[2];
}
/* r += a */
static inline void dyv_add(double r[3], const double a[3]) {
  r[0] += a[0]; r[1] += a[1]; r[2] += a[2]; DYV_OPS(0, 3);
}

/* alpha class of a modified-DH twist angle, without trigonometry: 0
 * general, 1: 0, 2: +pi/2, 3: -pi/2, 4: pi */
static inline int dyv_alpha_cls(double al) {
  /* decided on the angle itself (within 1e-12 rad), so that the special
   * angles cost no trigonometric call */
  const double e = 1e-12, pi = 3.14159265358979323846;
  double a = al;
  if (a > pi || a <= -pi) { a = fmod(a, 2*pi); if (a > pi) a -= 2*pi; else if (a <= -pi) a += 2*pi; }
  if (fabs(a) < e) return 1;
  if (fabs(a - pi/2) < e) return 2;
  if (fabs(a + pi/2) < e) return 3;
  if (fabs(fabs(a) - pi) < e) return 4;
  return 0;
}

/* the same with ca, sa = cos, sin alpha, exact for classes 1-4 */
static inline int dyv_alpha_class(double al, double* ca, double* sa) {
  static const double cc[5] = {0, 1, 0, 0, -1}, ss[5] = {0, 0, 1, -1, 0};
  const int k = dyv_alpha_cls(al);
  if (k) { *ca = cc[k]; *sa = ss[k]; } else { *ca = cos(al); *sa = sin(al); }
  return k;
}

/* r = R^T v with R = Rx(alpha) Rz(theta), factored */
static inline void dyv_rotT(double r[3], const double v[3], double ct, double st,
                        int cls, double ca, double sa) {
  double u1, u2;
  switch (cls) {
    case 1: u1 = v[1]; u2 = v[2]; break;
    case 2: u1 = v[2]; u2 = -v[1]; break;
    case 3: u1 = -v[2]; u2 = v[1]; break;
    case 4: u1 = -v[1]; u2 = -v[2]; break;
    default: u1 = ca*v[1] + sa*v[2]; u2 = ca*v[2] - sa*v[1]; DYV_OPS(4, 2);
  }
  r[0] = ct*v[0] + st*u1; r[1] = ct*u1 - st*v[0]; r[2] = u2;
  DYV_OPS(4, 2);
}
/* r = R v */
static inline void dyv_rotN(double r[3], const double v[3], double ct, double st,
                        int cls, double ca, double sa) {
  double u0 = ct*v[0] - st*v[1], u1 = st*v[0] + ct*v[1], u2 = v[2];
  DYV_OPS(4, 2);
  r[0] = u0;
  switch (cls) {
    case 1: r[1] = u1; r[2] = u2; break;
    case 2: r[1] = -u2; r[2] = u1; break;
    case 3: r[1] = u2; r[2] = -u1; break;
    case 4: r[1] = -u1; r[2] = -u2; break;
    default: r[1] = ca*u1 - sa*u2; r[2] = sa*u1 + ca*u2; DYV_OPS(4, 2);
  }
}

/* r = R^T (0, 0, v2) */
static inline void dyv_rotT_z(double r[3], double v2, double ct, double st,
                              int cls, double ca, double sa) {
  double u1, u2;
  switch (cls) {
    case 1: r[0] = 0; r[1] = 0; r[2] = v2; return;
    case 4: r[0] = 0; r[1] = 0; r[2] = -v2; return;
    case 2: u1 = v2; u2 = 0; break;
    case 3: u1 = -v2; u2 = 0; break;
    default: u1 = sa*v2; u2 = ca*v2; DYV_OPS(2, 0);
  }
  r[0] = st*u1; r[1] = ct*u1; r[2] = u2;
  DYV_OPS(2, 0);
}
/* (R v)_z */
static inline double dyv_rotN_z(const double v[3], double ct, double st,
                                int cls, double ca, double sa) {
  switch (cls) {
    case 1: return v[2];
    case 4: return -v[2];
    case 2: DYV_OPS(2, 1); return st*v[0] + ct*v[1];
    case 3: DYV_OPS(2, 1); return -(st*v[0] + ct*v[1]);
    default: DYV_OPS(4, 2); return sa*(st*v[0] + ct*v[1]) + ca*v[2];
  }
}

/* symmetric X (six entries xx xy xz yy yz zz) -> R X R^T, R = Rx(alpha)
 * Rz(theta), by [LinFang99] eqs. (41)-(54): 18 M 14 A for a general twist
 * (2 sin(alpha) counted as a product), 9 M 7 A for the classes 1-4.
 * Always inlined, so that a constant class specialises it. */
static inline __attribute__((always_inline)) void
dyv_rotSym(double o[6], const double X[6], double c, double s, int cls, double ca, double sa) {
  const double X11 = X[0], X12 = X[1], X13 = X[2], X22 = X[3], X23 = X[4], X33 = X[5];
  const double A1 = c*(X11 - X22) - 2*s*X12;
  const double A2 = c*A1, A3 = X11 - A2, A4 = s*A1 + X12;
  const double A5 = s*X13 + c*X23, A8 = c*X13 - s*X23;
  o[0] = A2 + X22;
  DYV_OPS(9, 7);
  switch (cls) {
    case 1: o[1] = A4; o[2] = A8; o[3] = A3; o[4] = A5; o[5] = X33; break;
    case 2: o[1] = -A8; o[2] = A4; o[3] = X33; o[4] = -A5; o[5] = A3; break;
    case 3: o[1] = A8; o[2] = -A4; o[3] = X33; o[4] = -A5; o[5] = A3; break;
    case 4: o[1] = -A4; o[2] = -A8; o[3] = A3; o[4] = A5; o[5] = X33; break;
    default: {
      const double A6 = (A3 - X33)*ca - 2*sa*A5, A7 = ca*A6;
      o[1] = ca*A4 - sa*A8; o[2] = sa*A4 + ca*A8;
      o[3] = A7 + X33; o[4] = A5 + sa*A6; o[5] = A3 - A7;
      DYV_OPS(9, 7);
    }
  }
}

/* Counted operations of one call of each verified algorithm on model m with
 * parameter vector par (14n; structurally zero entries are what the
 * base-parameter Newton-Euler skips; pass a realisation P beta) and the
 * zero-mask taken from par itself. Filled with -1 where not available. */
typedef struct {
  long lin91_H_mul, lin91_H_add;    /* Lin 1991 inertia matrix H */
  long lin91_Hb_mul, lin91_Hb_add;  /* Lin 1991 H and bias vector b */
  long nebase_mul, nebase_add;      /* base-parameter Newton-Euler */
  long nefull_mul, nefull_add;      /* same code, no parameter treated as zero */
} dyvOpCounts;

/* Count one call of each algorithm at a fixed generic state (counts do not
 * depend on the state except through sign tests, which cost nothing). */
void dyv_opcount(dyvOpCounts* out, const dyModel* m, const double* par);

/* Give m a general geometry, the case the papers' operation-count tables
 * assume: for joints 2..n, alpha_j = 0.3 + 0.2 j rad (none of 0, +-pi/2,
 * pi), a_j = 0.1 + 0.05 j m, d_j = 0.1 + 0.03 j m; joint 1 is kept (its
 * axis along gravity, as the tables take it). Calls dy_setConst. */
void dyv_general_geometry(dyModel* m);

/* [Renaud]'s 6R example (its geometry and grouped augmented-body
 * parameters, the nonzero ones set to arbitrary values): the model behind
 * its count of 181 M + 127 A; simplified != 0: with y*5 - z*6 as one
 * parameter (z*6 = 0), behind its 164 M + 115 A. Free with dy_freeModel;
 * NULL if out of memory. */
dyModel* dyv_renaud_model(int simplified);

/* Print the counts for model m (nominal parameters and, if P is given
 * (row-major npar x nb realisation map of a base set, npar = 10n or 14n),
 * the parameters it leaves structurally nonzero) beside the papers' formulas:
 * [Lin91] Table I (H, n rotational joints: (10.5n^2+38.5n-85) M +
 * (6n^2+39n-70) A) and its H+b count ((23n^2+44n-82) M + (15n^2+40n-70) A),
 * [Renaud]'s 181 M + 127 A for its 6R example (164 + 115 simplified), by
 * his algorithm (verify/renaud.h) and by the base-parameter Newton-Euler.
 * Returns 0. */
int dyv_opcount_report(FILE* f, const dyModel* m, const double* P, int npar, int nb);

#endif

/* Timing (the bench command): nanoseconds per call of dy_rnea, dy_crba,
 * dy_fd_chol, dy_fd_aba beside the base-parameter Newton-Euler, Lin 1991 H
 * and H+b, Saha's inverse and forward dynamics, on model m. The base-
 * parameter NE runs on a realisation of a base set: P (row-major npar x nb)
 * if given, otherwise the set made here by QR with column pivoting of the
 * Newton-Euler regressor (realisation = the independent columns), with
 * nominal values on the structurally nonzero parameters. Each algorithm is
 * timed in 21 interleaved rounds over 64 random states, about `seconds`
 * (default 0.2 if <= 0) in all. Prints "algorithm,ns_per_call,reference,
 * speedup_vs_reference,speedup_q1,speedup_q3,ns_fastest,speedup_fastest":
 * the median time per call, the median and quartiles of the round-by-round
 * speed-ups against the reference, the fastest round and the ratio of the
 * fastest rounds; then the verdict on the base-parameter Newton-Euler's
 * 1.5x target (fastest rounds). Returns 0, -1 on allocation failure. */
int dyv_bench_report(FILE* f, const dyModel* m, const double* P, int npar, int nb,
                     double seconds);

/* The structural zeros of the QR-pivot base set of m (zero: 14n entries,
 * 1 = not a pivot column of the stacked Newton-Euler regressor over 40
 * random states, friction columns included iff m->has_friction). Returns
 * the number of base parameters, or -1. */
int dyv_qr_zero_mask(unsigned char* zero, const dyModel* m);
