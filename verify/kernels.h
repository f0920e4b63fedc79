/* SPDX-License-Identifier: MIT */
/* dynid verify: the kernels the efficient algorithms share (lin91.c,
 * ne_base.c, lin_inertia.c, renaud.c, saha.c): operation counting, the
 * dispatch on the twist class, and the rotations by one joint's
 * R = Rx(alpha) Rz(theta) in factored form.
 *
 * Counting. Every kernel file is compiled twice (Makefile): as itself, and
 * with -DDY_COUNT_OPS into build/verify/NAME_ops.o. In the counting build
 * DYV_FN(name) is name_ops and DYV_OPS(M, A) adds M multiplications and A
 * additions to the counters *ops (a dyvOps the counting variant receives,
 * or reaches through its object: lin_inertia.c counts into its dyvLin).
 * In the ordinary build both do nothing and the fast path is untouched.
 * Rules: a subtraction or a negation inside a sum counts as an addition, a
 * pure sign change or a copy counts nothing, a division counts as a
 * multiplication, sin/cos count as neither (the papers report them apart);
 * a product with an exact 0 or +-1 of the geometry that is not executed
 * (special twists, a_j = 0, ...) is not counted. The counts are those of
 * the code paths executed for a model (joint types, geometry, structurally
 * zero parameters), not of a formula.
 *
 * Twist classes (dyTwist, model.h; the model holds each joint's class and
 * cos, sin alpha, filled by dy_set_const). DYV_DISPATCH switches once on a
 * kind code, twist class k and up to 3 flag bits (DYV_KIND), and calls the
 * always-inlined step with k and the bits as compile-time constants, so
 * that each listed pair gets code specialised for it. DYV_BY_TWIST is the
 * dispatch on the class alone. */
#ifndef DYNID_KERNELS_H
#define DYNID_KERNELS_H

#include <math.h>
#include "core/model.h"
#include "verify/opcount.h"

/* ------------------------------------------------------------ counting */

#ifdef DY_COUNT_OPS
#define DYV_OPS_AT(ctr, nm, na) ((ctr)->mul += (nm), (ctr)->add += (na))
#define DYV_FN(name) name##_ops
/* an entry point: the counting variant takes the counters first */
#define DYV_OPS_PARAM dyvOps* ops,
#define DYV_OPS_LOCAL
#else
#define DYV_OPS_AT(ctr, nm, na) ((void)(ctr))
#define DYV_FN(name) name
#define DYV_OPS_PARAM
#define DYV_OPS_LOCAL dyvOps* const ops = NULL; (void)ops;
#endif
/* count into the counters `ops` in scope */
#define DYV_OPS(nm, na) DYV_OPS_AT(ops, nm, na)

#define DYV_INL static inline __attribute__((always_inline))

/* ------------------------------------------------------------ twists */

/* cos, sin alpha_j for the kernels: exact (0, +-1) for the special twists,
 * the model's constants otherwise; returns the class */
static inline dyTwist dyv_twist_cs(const dyModel* m, int j, double* ca, double* sa) {
  static const double c[5] = {0, 1, 0, 0, -1}, s[5] = {0, 0, 1, -1, 0};
  const dyTwist k = m->twist[j];
  if (k != DY_TWIST_GENERAL) { *ca = c[k]; *sa = s[k]; }
  else { *ca = m->cos_alpha[j]; *sa = m->sin_alpha[j]; }
  return k;
}

/* class of any angle (a constant theta of a prismatic joint) and its cos,
 * sin, exact for the special classes */
static inline dyTwist dyv_angle_cs(double angle, double* c, double* s) {
  static const double cc[5] = {0, 1, 0, 0, -1}, ss[5] = {0, 0, 1, -1, 0};
  const dyTwist k = dy_twist_class(angle);
  if (k != DY_TWIST_GENERAL) { *c = cc[k]; *s = ss[k]; } else { *c = cos(angle); *s = sin(angle); }
  return k;
}

/* kind code of a specialised variant: twist class k (0..4) in the low 3
 * bits, flag bits (0..7) above; a twist class alone is its own kind */
#define DYV_KIND(k, bits) ((int)(k) | (bits) << 3)
#define DYV_KIND_TWIST(kind) ((kind) & 7)
#define DYV_CASE_(k, bits, CALL) case DYV_KIND(k, bits): CALL(k, bits); break;
/* switch on kind: CALL(k, bits) with k and bits constants for each pair
 * LIST emits (LIST(X, CALL) expands to X(k, bits, CALL) per pair), DEFAULT
 * for any other kind */
#define DYV_DISPATCH(kind, LIST, CALL, DEFAULT) \
  switch (kind) { LIST(DYV_CASE_, CALL) default: DEFAULT; break; }
/* the special classes, no flag bits */
#define DYV_TWIST_LIST(X, CALL) \
  X(DY_TWIST_0, 0, CALL) X(DY_TWIST_PI2, 0, CALL) X(DY_TWIST_MPI2, 0, CALL) X(DY_TWIST_PI, 0, CALL)
/* CALL(k, 0) with the twist class cls as the constant k (general: 0) */
#define DYV_BY_TWIST(cls, CALL) \
  DYV_DISPATCH(DYV_KIND(cls, 0), DYV_TWIST_LIST, CALL, CALL(DY_TWIST_GENERAL, 0))

/* ------------------------------------------------------------ 3-vectors */

/* r = a x b (6 M 3 A) */
DYV_INL void dyv_cross(dyvOps* ops, double r[3], const double a[3], const double b[3]) {
  r[0] = a[1]*b[2] - a[2]*b[1]; r[1] = a[2]*b[0] - a[0]*b[2]; r[2] = a[0]*b[1] - a[1]*b[0];
  DYV_OPS(6, 3);
}
/* r += a x b (6 M 6 A) */
DYV_INL void dyv_add_cross(dyvOps* ops, double r[3], const double a[3], const double b[3]) {
  r[0] += a[1]*b[2] - a[2]*b[1]; r[1] += a[2]*b[0] - a[0]*b[2]; r[2] += a[0]*b[1] - a[1]*b[0];
  DYV_OPS(6, 6);
}
/* a . b (3 M 2 A) */
DYV_INL double dyv_dot(dyvOps* ops, const double a[3], const double b[3]) {
  DYV_OPS(3, 2);
  return a[0]*b[0] + a[1]*b[1] + a[2]*b[2];
}
/* r += a (3 A) */
DYV_INL void dyv_add(dyvOps* ops, double r[3], const double a[3]) {
  r[0] += a[0]; r[1] += a[1]; r[2] += a[2]; DYV_OPS(0, 3);
}

/* ------------------------------------------- rotations by one joint's R */

/* r = R^T v, R = Rx(alpha) Rz(theta): ct, st = cos, sin theta; cls, ca, sa
 * the twist (ca, sa exact for the special classes). 4 M 2 A, plus 4 M 2 A
 * for a general twist. */
DYV_INL void dyv_rot_t(dyvOps* ops, double r[3], const double v[3], double ct, double st,
                      int cls, double ca, double sa) {
  double u1, u2;
  switch (cls) {
    case DY_TWIST_0: u1 = v[1]; u2 = v[2]; break;
    case DY_TWIST_PI2: u1 = v[2]; u2 = -v[1]; break;
    case DY_TWIST_MPI2: u1 = -v[2]; u2 = v[1]; break;
    case DY_TWIST_PI: u1 = -v[1]; u2 = -v[2]; break;
    default: u1 = ca*v[1] + sa*v[2]; u2 = ca*v[2] - sa*v[1]; DYV_OPS(4, 2);
  }
  r[0] = ct*v[0] + st*u1; r[1] = ct*u1 - st*v[0]; r[2] = u2;
  DYV_OPS(4, 2);
}

/* r = R v (counts as dyv_rot_t) */
DYV_INL void dyv_rot_n(dyvOps* ops, double r[3], const double v[3], double ct, double st,
                      int cls, double ca, double sa) {
  double u0 = ct*v[0] - st*v[1], u1 = st*v[0] + ct*v[1], u2 = v[2];
  DYV_OPS(4, 2);
  r[0] = u0;
  switch (cls) {
    case DY_TWIST_0: r[1] = u1; r[2] = u2; break;
    case DY_TWIST_PI2: r[1] = -u2; r[2] = u1; break;
    case DY_TWIST_MPI2: r[1] = u2; r[2] = -u1; break;
    case DY_TWIST_PI: r[1] = -u1; r[2] = -u2; break;
    default: r[1] = ca*u1 - sa*u2; r[2] = sa*u1 + ca*u2; DYV_OPS(4, 2);
  }
}

/* r = R^T (0, 0, v2) */
DYV_INL void dyv_rot_t_z(dyvOps* ops, double r[3], double v2, double ct, double st,
                        int cls, double ca, double sa) {
  double u1, u2;
  switch (cls) {
    case DY_TWIST_0: r[0] = 0; r[1] = 0; r[2] = v2; return;
    case DY_TWIST_PI: r[0] = 0; r[1] = 0; r[2] = -v2; return;
    case DY_TWIST_PI2: u1 = v2; u2 = 0; break;
    case DY_TWIST_MPI2: u1 = -v2; u2 = 0; break;
    default: u1 = sa*v2; u2 = ca*v2; DYV_OPS(2, 0);
  }
  r[0] = st*u1; r[1] = ct*u1; r[2] = u2;
  DYV_OPS(2, 0);
}

/* (R v)_z */
DYV_INL double dyv_rot_n_z(dyvOps* ops, const double v[3], double ct, double st,
                          int cls, double ca, double sa) {
  switch (cls) {
    case DY_TWIST_0: return v[2];
    case DY_TWIST_PI: return -v[2];
    case DY_TWIST_PI2: DYV_OPS(2, 1); return st*v[0] + ct*v[1];
    case DY_TWIST_MPI2: DYV_OPS(2, 1); return -(st*v[0] + ct*v[1]);
    default: DYV_OPS(4, 2); return sa*(st*v[0] + ct*v[1]) + ca*v[2];
  }
}

/* known zeros of X and counting conventions of dyv_rot_sym (constants) */
enum {
  DYV_SYM_X22Z = 1,   /* X22 = 0 */
  DYV_SYM_X3Z = 2,    /* X13 = X23 = X33 = 0 (their slots are not read) */
  DYV_SYM_SA2 = 4     /* 2 sin(alpha) is a constant of the model, not counted */
};

/* o = R X R^T for symmetric X (six entries xx xy xz yy yz zz, output
 * likewise), R = Rx(alpha) Rz(theta), by [LinFang99] eqs. (41)-(54): the
 * Rz part with the double angle (A1..A5, A8; 2 sin(theta) counted as a
 * product), then Rx by class: a signed permutation for the special
 * twists, A6, A7 for a general one. 18 M 14 A general (17 M with
 * DYV_SYM_SA2), 9 M 7 A special; DYV_SYM_X22Z saves 2 A, DYV_SYM_X3Z
 * 4 M 2 A of the Rz part and 4 M 6 A of the Rx part. Entries known to be
 * zero come out as exact +0. c, s: cos, sin theta. */
DYV_INL void dyv_rot_sym(dyvOps* ops, double o[6], const double X[6], double c, double s,
                        int cls, double ca, double sa, int flags) {
  const int z22 = flags & DYV_SYM_X22Z, z3 = flags & DYV_SYM_X3Z;
  const double X11 = X[0], X12 = X[1], X22 = z22 ? 0 : X[3];
  const double A1 = c*(z22 ? X11 : X11 - X22) - 2*s*X12;
  const double A2 = c*A1, A3 = X11 - A2, A4 = s*A1 + X12;
  double A5 = 0, A8 = 0, X33 = 0;
  o[0] = z22 ? A2 : A2 + X22;
  DYV_OPS(5, z22 ? 3 : 5);
  if (!z3) {
    const double X13 = X[2], X23 = X[4];
    X33 = X[5];
    A5 = s*X13 + c*X23; A8 = c*X13 - s*X23;
    DYV_OPS(4, 2);
  }
  switch (cls) {
    case DY_TWIST_0: o[1] = A4; o[2] = A8; o[3] = A3; o[4] = A5; o[5] = X33; break;
    case DY_TWIST_PI2:
      o[1] = z3 ? 0 : -A8; o[2] = A4; o[3] = X33; o[4] = z3 ? 0 : -A5; o[5] = A3; break;
    case DY_TWIST_MPI2: o[1] = A8; o[2] = -A4; o[3] = X33; o[4] = z3 ? 0 : -A5; o[5] = A3; break;
    case DY_TWIST_PI: o[1] = -A4; o[2] = z3 ? 0 : -A8; o[3] = A3; o[4] = A5; o[5] = X33; break;
    default:
      if (z3) {
        const double A6 = A3*ca, A7 = ca*A6;
        o[1] = ca*A4; o[2] = sa*A4; o[3] = A7; o[4] = sa*A6; o[5] = A3 - A7;
        DYV_OPS(5, 1);
      } else {
        const double A6 = (A3 - X33)*ca - 2*sa*A5, A7 = ca*A6;
        o[1] = ca*A4 - sa*A8; o[2] = sa*A4 + ca*A8;
        o[3] = A7 + X33; o[4] = A5 + sa*A6; o[5] = A3 - A7;
        DYV_OPS((flags & DYV_SYM_SA2) ? 8 : 9, 7);
      }
  }
}

#endif
