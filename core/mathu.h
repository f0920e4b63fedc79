/* SPDX-License-Identifier: MIT */
/* dynid pure math: small fixed-shape helpers on 3-vectors and 3x3
 * row-major matrices. Output first, inputs after (MuJoCo's mju_ style).
 * All inline: they sit inside the per-sample loops. */
#ifndef DYNID_MATHU_H
#define DYNID_MATHU_H

#include <math.h>
#include <string.h>

/* res = a x b (res may not alias a or b) */
static inline void dyu_cross(double res[3], const double a[3], const double b[3]) {
  res[0] = a[1]*b[2] - a[2]*b[1];
  res[1] = a[2]*b[0] - a[0]*b[2];
  res[2] = a[0]*b[1] - a[1]*b[0];
}
/* res += a x b */
static inline void dyu_addCross(double res[3], const double a[3], const double b[3]) {
  res[0] += a[1]*b[2] - a[2]*b[1];
  res[1] += a[2]*b[0] - a[0]*b[2];
  res[2] += a[0]*b[1] - a[1]*b[0];
}
/* a . b */
static inline double dyu_dot3(const double a[3], const double b[3]) {
  return a[0]*b[0] + a[1]*b[1] + a[2]*b[2];
}
/* res = M v */
static inline void dyu_mulMatVec3(double res[3], const double M[9], const double v[3]) {
  res[0] = M[0]*v[0] + M[1]*v[1] + M[2]*v[2];
  res[1] = M[3]*v[0] + M[4]*v[1] + M[5]*v[2];
  res[2] = M[6]*v[0] + M[7]*v[1] + M[8]*v[2];
}
/* res = M^T v */
static inline void dyu_mulMatTVec3(double res[3], const double M[9], const double v[3]) {
  res[0] = M[0]*v[0] + M[3]*v[1] + M[6]*v[2];
  res[1] = M[1]*v[0] + M[4]*v[1] + M[7]*v[2];
  res[2] = M[2]*v[0] + M[5]*v[1] + M[8]*v[2];
}
/* res = A B (3x3; res may not alias) */
static inline void dyu_mulMat3(double res[9], const double A[9], const double B[9]) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      res[3*i+j] = A[3*i]*B[j] + A[3*i+1]*B[3+j] + A[3*i+2]*B[6+j];
}
/* res = A^T B */
static inline void dyu_mulMatTMat3(double res[9], const double A[9], const double B[9]) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      res[3*i+j] = A[i]*B[j] + A[3+i]*B[3+j] + A[6+i]*B[6+j];
}
/* res = A B^T */
static inline void dyu_mulMatMatT3(double res[9], const double A[9], const double B[9]) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      res[3*i+j] = A[3*i]*B[3*j] + A[3*i+1]*B[3*j+1] + A[3*i+2]*B[3*j+2];
}
/* symmetric 3x3 from the six entries xx xy xz yy yz zz */
static inline void dyu_sym6ToMat(double M[9], const double s[6]) {
  M[0] = s[0]; M[1] = s[1]; M[2] = s[2];
  M[3] = s[1]; M[4] = s[3]; M[5] = s[4];
  M[6] = s[2]; M[7] = s[4]; M[8] = s[5];
}
/* the six entries xx xy xz yy yz zz of a (symmetric) 3x3 */
static inline void dyu_matToSym6(double s[6], const double M[9]) {
  s[0] = M[0]; s[1] = 0.5*(M[1]+M[3]); s[2] = 0.5*(M[2]+M[6]);
  s[3] = M[4]; s[4] = 0.5*(M[5]+M[7]); s[5] = M[8];
}
/* res = J v with J symmetric given by its six entries */
static inline void dyu_mulSym6Vec(double res[3], const double s[6], const double v[3]) {
  res[0] = s[0]*v[0] + s[1]*v[1] + s[2]*v[2];
  res[1] = s[1]*v[0] + s[3]*v[1] + s[4]*v[2];
  res[2] = s[2]*v[0] + s[4]*v[1] + s[5]*v[2];
}
/* identity 3x3 */
static inline void dyu_eye3(double M[9]) {
  M[0] = M[4] = M[8] = 1; M[1] = M[2] = M[3] = M[5] = M[6] = M[7] = 0;
}
/* rotation about x by a [rad] */
static inline void dyu_rotx(double M[9], double a) {
  double c = cos(a), s = sin(a);
  M[0] = 1; M[1] = 0; M[2] = 0; M[3] = 0; M[4] = c; M[5] = -s; M[6] = 0; M[7] = s; M[8] = c;
}
/* rotation about z by a [rad] */
static inline void dyu_rotz(double M[9], double a) {
  double c = cos(a), s = sin(a);
  M[0] = c; M[1] = -s; M[2] = 0; M[3] = s; M[4] = c; M[5] = 0; M[6] = 0; M[7] = 0; M[8] = 1;
}
/* pose composition: (R,p) = (R1,p1)(R2,p2), i.e. R = R1 R2, p = p1 + R1 p2 */
static inline void dyu_composePose(double R[9], double p[3], const double R1[9],
                                   const double p1[3], const double R2[9], const double p2[3]) {
  double t[3];
  dyu_mulMatVec3(t, R1, p2);
  dyu_mulMat3(R, R1, R2);
  p[0] = p1[0] + t[0]; p[1] = p1[1] + t[1]; p[2] = p1[2] + t[2];
}
/* sign with sign(0) = 0 */
static inline double dyu_sign(double x) { return (x > 0) - (x < 0); }

/* R Jsym R^T for any rotation R given as a matrix and a symmetric J given
 * by six entries; result as six entries (frames of a URDF, a centre-of-mass
 * frame, the composite inertias of dy_crba and dy_crba_batch) */
static inline void dyu_rotSym6(double out[6], const double R[9], const double s[6]) {
  double J[9], T[9], O[9];
  dyu_sym6ToMat(J, s);
  dyu_mulMat3(T, R, J);
  dyu_mulMatMatT3(O, T, R);
  dyu_matToSym6(out, O);
}

/* o = R X R^T for one joint's rotation R = Rx(alpha) Rz(theta), factored,
 * and symmetric X (six entries xx xy xz yy yz zz, o likewise; o may not
 * alias X), by [LinFang99] eqs. (41)-(54): Rz with the double angle, then
 * Rx, a signed permutation for alpha within 1e-15 (of its sine or cosine)
 * of 0, pi or +-pi/2. 9 M 7 A, 18 M 14 A for a general twist (dyu_rotSym6,
 * with R as a matrix: 54 M 36 A). ct, st: cos, sin theta; ca, sa: cos, sin
 * alpha.
 * Forward dynamics' articulated inertias use it (fd.c); its twin with the
 * operation counts and known zeros is verify/kernels.h dyv_rot_sym. */
static inline void dyu_rotJointSym6(double o[6], const double X[6], double ct, double st, double ca, double sa) {
  const double X11 = X[0], X12 = X[1], X13 = X[2], X22 = X[3], X23 = X[4], X33 = X[5];
  /* Y = Rz X Rz^T: Y11 = A2 + X22, Y12 = A4, Y22 = A3, Y13 = A8, Y23 = A5, Y33 = X33 */
  const double A1 = ct*(X11 - X22) - 2*st*X12, A2 = ct*A1, A3 = X11 - A2, A4 = st*A1 + X12;
  const double A5 = st*X13 + ct*X23, A8 = ct*X13 - st*X23;
  o[0] = A2 + X22;
  if (fabs(sa) < 1e-15) {                      /* alpha = 0 or pi */
    const double sg = ca > 0 ? 1 : -1;
    o[1] = sg*A4; o[2] = sg*A8; o[3] = A3; o[4] = A5; o[5] = X33;
  } else if (fabs(ca) < 1e-15) {               /* alpha = +-pi/2: rows and columns 1, 2 swap */
    const double sg = sa > 0 ? 1 : -1;
    o[1] = -sg*A8; o[2] = sg*A4; o[3] = X33; o[4] = -A5; o[5] = A3;
  } else {
    const double A6 = (A3 - X33)*ca - 2*sa*A5, A7 = ca*A6;
    o[1] = ca*A4 - sa*A8; o[2] = sa*A4 + ca*A8;
    o[3] = A7 + X33; o[4] = A5 + sa*A6; o[5] = A3 - A7;
  }
}

/* s[b] = sin x[b], c[b] = cos x[b] for 8 lanes (the batch kernels' chunk),
 * written for the vectoriser: every statement in a loop of fixed trip
 * count without branches. Within 1 ulp of libm's (not always the same
 * rounding): x = n pi/2 + r with n rounded to nearest and r by a
 * three-part pi/2 (Cody-Waite: n p1 and n p2 exact, p1 and p2 of 33 bits,
 * for |n| < 2^20), the minimax polynomials of FreeBSD's k_sin.c and
 * k_cos.c on |r| <= pi/4, the quadrant n mod 4 choosing and signing them.
 * Lanes with |x| >= 1e5, infinite or NaN go to libm's sincos. sin(-0) is
 * +0 (the quadrant's selection adds zeros). */
static inline __attribute__((always_inline)) void dyu_sincos8(double s[8], double c[8], const double x[8]) {
  const double inv = 6.36619772367581382433e-01, sh = 0x1.8p52;
  const double p1 = 1.57079632673412561417e+00, p2 = 6.07710050630396597660e-11,
               p2t = 2.02226624879595063154e-21;
  const double S1 = -1.66666666666666324348e-01, S2 = 8.33333333332248946124e-03,
               S3 = -1.98412698298579493134e-04, S4 = 2.75573137070700676789e-06,
               S5 = -2.50507602534068634195e-08, S6 = 1.58969099521155010221e-10;
  const double C1 = 4.16666666666666019037e-02, C2 = -1.38888888888741095749e-03,
               C3 = 2.48015872894767294178e-05, C4 = -2.75573143513906633035e-07,
               C5 = 2.08757232129817482790e-09, C6 = -1.13596475577881948265e-11;
  int big = 0;
  for (int b = 0; b < 8; b++) {
    const double xb = x[b];
    const double n = (xb*inv + sh) - sh;            /* nearest integer */
    const double r = ((xb - n*p1) - n*p2) - n*p2t;
    const double z = r*r, w = z*z;
    const double ps = S2 + z*(S3 + z*S4) + z*w*(S5 + z*S6);
    const double sr = r + z*r*(S1 + z*ps);
    const double pc = z*(C1 + z*(C2 + z*C3)) + w*w*(C4 + z*(C5 + z*C6));
    const double hz = 0.5*z, v = 1.0 - hz;
    const double cr = v + (((1.0 - v) - hz) + z*pc);
    /* quadrant k = n mod 4 in -2..2: sin = (S, C, -S, -C)[k mod 4], cos =
     * (C, -S, -C, S)[k mod 4]; chosen without a branch: the signs of
     * quadratics in k that are positive exactly where sin, cos are
     * negated and where |k| = 1 (C and S swap), then exact products with
     * 0 and +-1 */
    const double k = n - 4*((n*0.25 + sh) - sh), ak = fabs(k);
    const double sg_s = -copysign(1.0, (k + 0.5)*(k - 1.5)), sg_c = -copysign(1.0, (k - 0.5)*(k + 1.5));
    const double odd = 0.5 - 0.5*copysign(1.0, (ak - 0.5)*(ak - 1.5)), even = 1.0 - odd;
    s[b] = sg_s*(even*sr + odd*cr);
    c[b] = sg_c*(even*cr + odd*sr);
    big |= !(fabs(x[b]) < 1e5);
  }
  if (big)
    for (int b = 0; b < 8; b++)
      if (!(fabs(x[b]) < 1e5)) sincos(x[b], &s[b], &c[b]);
}

#endif
