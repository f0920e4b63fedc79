/* SPDX-License-Identifier: MIT */
/* dynid core: allocation, parameter names, frames and forward kinematics
 * of the modified-DH model (see model.h). */
#include "core/model.h"
#include "core/mathu.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Every array of a dyModel, (field, number of elements for n joints): the
 * one list make, copy and free follow. All live in one allocation, each
 * array starting on a 16-byte boundary. */
#define DY_MODEL_ARRAYS(X) \
  X(dh_alpha, n) X(dh_a, n) X(dh_theta, n) X(dh_d, n) \
  X(par, (DY_NPL + DY_NPAR_MOT)*n) X(trans, n*n) \
  X(jnt_qmin, n) X(jnt_qmax, n) X(jnt_qdmax, n) X(jnt_qddmax, n) X(jnt_taumax, n) \
  X(link_ell, 6*n) \
  X(cos_alpha, n) X(sin_alpha, n) \
  X(jnt_type, n) X(twist, n) X(jnt_name, n)
/* the start of the allocation: the first array of the list */
#define DY_MODEL_BLOCK(m) ((void*)(m)->dh_alpha)

/* bytes of count elements of field, rounded up to 16 */
#define DY_ARRAY_BYTES(m, field, count) ((sizeof *(m)->field * (size_t)(count) + 15) / 16 * 16)

dyModel* dy_make_model(int n) {
  if (n < 1 || n > DY_MAXJ) return NULL;
  dyModel* m = calloc(1, sizeof(dyModel));
  if (!m) return NULL;
  size_t bytes = 0;
#define DY_SIZE_(field, count) bytes += DY_ARRAY_BYTES(m, field, count);
  DY_MODEL_ARRAYS(DY_SIZE_)
#undef DY_SIZE_
  char* blk = calloc(1, bytes);
  if (!blk) { free(m); return NULL; }
#define DY_PLACE_(field, count) m->field = (void*)blk; blk += DY_ARRAY_BYTES(m, field, count);
  DY_MODEL_ARRAYS(DY_PLACE_)
#undef DY_PLACE_
  m->n = n;
  for (int j = 0; j < n; j++) {
    m->jnt_qmin[j] = -INFINITY; m->jnt_qmax[j] = INFINITY;
    m->jnt_qdmax[j] = INFINITY; m->jnt_qddmax[j] = INFINITY; m->jnt_taumax[j] = INFINITY;
  }
  m->gravity[2] = -9.81;
  dyu_eye3(m->base_T); dyu_eye3(m->tip_T);
  dy_set_const(m);
  return m;
}

void dy_free_model(dyModel* m) {
  if (!m) return;
  free(DY_MODEL_BLOCK(m));
  free(m);
}

dyModel* dy_copy_model(const dyModel* m) {
  dyModel* c = dy_make_model(m->n);
  if (!c) return NULL;
  const int n = m->n;
#define DY_COPY_(field, count) memcpy(c->field, m->field, sizeof *m->field * (size_t)(count));
  DY_MODEL_ARRAYS(DY_COPY_)
#undef DY_COPY_
  c->has_friction = m->has_friction;
  c->has_trans = m->has_trans;
  c->nmot = m->nmot;
  memcpy(c->mot_k, m->mot_k, sizeof c->mot_k);
  memcpy(c->gravity, m->gravity, sizeof c->gravity);
  memcpy(c->base_T, m->base_T, sizeof c->base_T);
  memcpy(c->tip_T, m->tip_T, sizeof c->tip_T);
  c->load_fk_err = m->load_fk_err;
  memcpy(c->source, m->source, sizeof c->source);
  memcpy(c->notes, m->notes, sizeof c->notes);
  return c;
}

dyTwist dy_twist_class(double angle) {
  const double e = 1e-12, pi = 3.14159265358979323846;
  double a = angle;
  if (a > pi || a <= -pi) { a = fmod(a, 2*pi); if (a > pi) a -= 2*pi; else if (a <= -pi) a += 2*pi; }
  if (fabs(a) < e) return DY_TWIST_0;
  if (fabs(a - pi/2) < e) return DY_TWIST_PI2;
  if (fabs(a + pi/2) < e) return DY_TWIST_MPI2;
  if (fabs(fabs(a) - pi) < e) return DY_TWIST_PI;
  return DY_TWIST_GENERAL;
}

void dy_set_const(dyModel* m) {
  for (int j = 0; j < m->n; j++) {
    const double al = m->dh_alpha[j];
    m->cos_alpha[j] = cos(al);
    m->sin_alpha[j] = sin(al);
    m->twist[j] = dy_twist_class(al);
  }
}

/* Every array of a dyData, (field, number of doubles for n joints). */
#define DY_DATA_ARRAYS(X) \
  X(R, 9*n) X(p, 3*n) X(w, 3*n) X(wd, 3*n) X(vd, 3*n) X(f, 3*n) X(nm, 3*n) \
  X(comp, 10*n) X(H, n*n) X(bias, n) \
  X(art, 27*n) X(vel, 6*n) X(acc, 6*n) X(pA, 6*n) X(U, 6*n) X(D, n) X(u, n) \
  X(axes, 6*n)

dyData* dy_make_data(const dyModel* m) {
  const size_t n = (size_t)m->n;
  size_t nd = 0;
#define DY_SIZE_(field, count) nd += (count);
  DY_DATA_ARRAYS(DY_SIZE_)
#undef DY_SIZE_
  dyData* d = calloc(1, sizeof(dyData) + nd * sizeof(double));
  if (!d) return NULL;
  double* b = (double*)(d + 1);
  d->n = m->n;
#define DY_PLACE_(field, count) d->field = b; b += (count);
  DY_DATA_ARRAYS(DY_PLACE_)
#undef DY_PLACE_
  return d;
}

void dy_free_data(dyData* d) { free(d); }

int dy_npar(const dyModel* m) { return DY_NPL * m->n + DY_NPAR_MOT * m->nmot; }

static const char* const link_names[DY_NPAR_LINK] = {
  "XX", "XY", "XZ", "YY", "YZ", "ZZ", "MX", "MY", "MZ", "M"};
static const char* const jnt_names[DY_NPAR_JNT] = {"IA", "FV", "FC", "FO"};
static const char* const mot_names[DY_NPAR_MOT] = {"IAM", "FVM", "FCM"};

void dy_parname(const dyModel* m, int k, char* buf, int bufsz) {
  int nl = DY_NPAR_LINK * m->n, nj = DY_NPL * m->n;
  if (k < nl)
    snprintf(buf, (size_t)bufsz, "%s%d", link_names[k % DY_NPAR_LINK], k / DY_NPAR_LINK + 1);
  else if (k >= nj)   /* a coupled motor's: IAM6 is motor 6's */
    snprintf(buf, (size_t)bufsz, "%s%d", mot_names[(k - nj) % DY_NPAR_MOT],
             m->mot_k[(k - nj) / DY_NPAR_MOT] + 1);
  else
    snprintf(buf, (size_t)bufsz, "%s%d", jnt_names[(k - nl) % DY_NPAR_JNT], (k - nl) / DY_NPAR_JNT + 1);
}

int dy_parkind(const dyModel* m, int k) {
  const int nl = DY_NPAR_LINK * m->n, nj = DY_NPL * m->n;
  if (k < nl) return -1;
  return k < nj ? (k - nl) % DY_NPAR_JNT : (k - nj) % DY_NPAR_MOT;   /* IAM FVM FCM = IA FV FC */
}

int dy_par_reaches(const dyModel* m, int k, int j) {
  const int n = m->n, nl = DY_NPAR_LINK * n, nj = DY_NPL * n;
  if (k < nl) return k / DY_NPAR_LINK >= j;
  if (k < nj) return (k - nl) / DY_NPAR_JNT == j;
  return m->trans[n * m->mot_k[(k - nj) / DY_NPAR_MOT] + j] != 0;
}

int dy_parindex(const dyModel* m, const char* name) {
  /* split into letters and a link number */
  int i = 0;
  while (name[i] && isalpha((unsigned char)name[i])) i++;
  if (i == 0 || !name[i]) return -1;
  char* end;
  long j = strtol(name + i, &end, 10);
  if (*end || j < 1 || j > m->n) return -1;
  for (int k = 0; k < DY_NPAR_LINK; k++)
    if ((int)strlen(link_names[k]) == i && !strncasecmp(name, link_names[k], (size_t)i))
      return DY_NPAR_LINK * (int)(j - 1) + k;
  for (int k = 0; k < DY_NPAR_JNT; k++)
    if ((int)strlen(jnt_names[k]) == i && !strncasecmp(name, jnt_names[k], (size_t)i))
      return DY_NPAR_LINK * m->n + DY_NPAR_JNT * (int)(j - 1) + k;
  for (int k = 0; k < DY_NPAR_MOT; k++)
    if ((int)strlen(mot_names[k]) == i && !strncasecmp(name, mot_names[k], (size_t)i))
      for (int c = 0; c < m->nmot; c++)
        if (m->mot_k[c] == j - 1) return DY_NPL * m->n + DY_NPAR_MOT * c + k;
  return -1;
}

void dy_linkpar_from_com(double par[10], double mass, const double c[3], const double Ic[6]) {
  double cc = dyu_dot3(c, c);
  par[DY_XX] = Ic[0] + mass * (cc - c[0]*c[0]);
  par[DY_XY] = Ic[1] - mass * c[0]*c[1];
  par[DY_XZ] = Ic[2] - mass * c[0]*c[2];
  par[DY_YY] = Ic[3] + mass * (cc - c[1]*c[1]);
  par[DY_YZ] = Ic[4] - mass * c[1]*c[2];
  par[DY_ZZ] = Ic[5] + mass * (cc - c[2]*c[2]);
  par[DY_MX] = mass * c[0];
  par[DY_MY] = mass * c[1];
  par[DY_MZ] = mass * c[2];
  par[DY_M] = mass;
}

void dy_linkpar_to_com(const double par[10], double* mass, double c[3], double Ic[6]) {
  double m = par[DY_M];
  *mass = m;
  if (m > 0) { c[0] = par[DY_MX]/m; c[1] = par[DY_MY]/m; c[2] = par[DY_MZ]/m; }
  else c[0] = c[1] = c[2] = 0;
  double mm = m > 0 ? m : 0, cc = dyu_dot3(c, c);
  Ic[0] = par[DY_XX] - mm * (cc - c[0]*c[0]);
  Ic[1] = par[DY_XY] + mm * c[0]*c[1];
  Ic[2] = par[DY_XZ] + mm * c[0]*c[2];
  Ic[3] = par[DY_YY] - mm * (cc - c[1]*c[1]);
  Ic[4] = par[DY_YZ] + mm * c[1]*c[2];
  Ic[5] = par[DY_ZZ] - mm * (cc - c[2]*c[2]);
}

void dy_jointframe(const dyModel* m, int j, double qj, double R[9], double p[3]) {
  double th = m->dh_theta[j], dd = m->dh_d[j];
  if (m->jnt_type[j] == DY_REVOLUTE) th += qj; else dd += qj;
  double ca = m->cos_alpha[j], sa = m->sin_alpha[j];
  double ct = cos(th), st = sin(th);
  /* Rx(alpha) Rz(theta) */
  R[0] = ct;      R[1] = -st;     R[2] = 0;
  R[3] = ca*st;   R[4] = ca*ct;   R[5] = -sa;
  R[6] = sa*st;   R[7] = sa*ct;   R[8] = ca;
  p[0] = m->dh_a[j]; p[1] = -sa*dd; p[2] = ca*dd;
}

void dy_fk(const dyModel* m, const double* q, int j, double R[9], double p[3]) {
  double Rc[9], pc[3], Rj[9], pj[3];
  memcpy(Rc, m->base_T, sizeof Rc);
  memcpy(pc, m->base_T + 9, sizeof pc);
  int last = j < m->n ? j : m->n - 1;
  for (int k = 0; k <= last; k++) {
    dy_jointframe(m, k, q[k], Rj, pj);
    dyu_composePose(R, p, Rc, pc, Rj, pj);
    memcpy(Rc, R, sizeof Rc); memcpy(pc, p, sizeof pc);
  }
  if (j >= m->n) {
    dyu_composePose(R, p, Rc, pc, m->tip_T, m->tip_T + 9);
  } else {
    memcpy(R, Rc, sizeof Rc); memcpy(p, pc, sizeof pc);
  }
}

void dy_pseudo_inertia(const double p[10], double PI[16]) {
  double t = 0.5*(p[DY_XX] + p[DY_YY] + p[DY_ZZ]);
  double A[16] = {
    t - p[DY_XX], -p[DY_XY], -p[DY_XZ], p[DY_MX],
    -p[DY_XY], t - p[DY_YY], -p[DY_YZ], p[DY_MY],
    -p[DY_XZ], -p[DY_YZ], t - p[DY_ZZ], p[DY_MZ],
    p[DY_MX], p[DY_MY], p[DY_MZ], p[DY_M]};
  memcpy(PI, A, sizeof A);
}

int dy_length_bad(const dyModel* m, double limit, char* what, int whatsz) {
  for (int j = 0; j < m->n; j++)
    if (!(fabs(m->dh_a[j]) <= limit) || !(fabs(m->dh_d[j]) <= limit)) {
      snprintf(what, (size_t)whatsz, "joint %d: a = %g m, d = %g m: a length beyond %g m", j + 1, m->dh_a[j],
               m->dh_d[j], limit);
      return 1;
    }
  for (int j = 0; j < m->n; j++)
    if (!(fabs(m->dh_alpha[j]) <= DY_MAXANGLE) || !(fabs(m->dh_theta[j]) <= DY_MAXANGLE)) {
      snprintf(what, (size_t)whatsz, "joint %d: alpha = %g rad, theta = %g rad: an angle beyond %g rad",
               j + 1, m->dh_alpha[j], m->dh_theta[j], DY_MAXANGLE);
      return 1;
    }
  for (int t = 0; t < 2; t++) {
    const double* p = (t ? m->tip_T : m->base_T) + 9;
    if (!(fabs(p[0]) <= limit) || !(fabs(p[1]) <= limit) || !(fabs(p[2]) <= limit)) {
      snprintf(what, (size_t)whatsz, "the %s offset (%g, %g, %g) m: a length beyond %g m", t ? "tip" : "base",
               p[0], p[1], p[2], limit);
      return 1;
    }
  }
  return 0;
}

int dy_ell_given(const double e[6]) {
  for (int k = 0; k < 6; k++) if (e[k] != 0) return 1;
  return 0;
}

int dy_ell_bad(const double e[6]) {
  if (!dy_ell_given(e)) return -1;
  for (int k = 0; k < 6; k++)
    if (!(fabs(e[k]) <= DY_MAXLEN) || (k >= 3 && !(e[k] > 0))) return k;
  return -1;
}
