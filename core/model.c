/* dynid core: allocation, parameter names, frames and forward kinematics
 * of the modified-DH model (see model.h). */
#include "model.h"
#include "mathu.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

dyModel* dy_makeModel(int n) {
  if (n < 1 || n > DY_MAXJ) return NULL;
  dyModel* m = calloc(1, sizeof(dyModel));
  if (!m) return NULL;
  /* one block: 4 int-sized arrays are stored as doubles for alignment */
  size_t nd = (size_t)n * (4 + 14 + 5) + (size_t)n; /* dh, par, limits, type */
  double* blk = calloc(nd, sizeof(double));
  char (*names)[64] = calloc((size_t)n, 64);
  if (!blk || !names) { free(blk); free(names); free(m); return NULL; }
  m->n = n;
  m->dh_alpha = blk;
  m->dh_a = blk + n;
  m->dh_theta = blk + 2*n;
  m->dh_d = blk + 3*n;
  m->par = blk + 4*n;
  m->jnt_qmin = blk + 18*n;
  m->jnt_qmax = blk + 19*n;
  m->jnt_qdmax = blk + 20*n;
  m->jnt_qddmax = blk + 21*n;
  m->jnt_taumax = blk + 22*n;
  m->jnt_type = (int*)(blk + 23*n);
  m->jnt_name = names;
  for (int j = 0; j < n; j++) {
    m->jnt_qmin[j] = -INFINITY; m->jnt_qmax[j] = INFINITY;
    m->jnt_qdmax[j] = INFINITY; m->jnt_qddmax[j] = INFINITY; m->jnt_taumax[j] = INFINITY;
  }
  m->gravity[2] = -9.81;
  dyu_eye3(m->base_T); dyu_eye3(m->tip_T);
  return m;
}

void dy_freeModel(dyModel* m) {
  if (!m) return;
  free(m->dh_alpha);
  free(m->jnt_name);
  free(m);
}

dyModel* dy_copyModel(const dyModel* m) {
  dyModel* c = dy_makeModel(m->n);
  if (!c) return NULL;
  int n = m->n;
  memcpy(c->dh_alpha, m->dh_alpha, sizeof(double) * ((size_t)n * 24));
  memcpy(c->jnt_name, m->jnt_name, (size_t)n * 64);
  c->has_friction = m->has_friction;
  memcpy(c->gravity, m->gravity, sizeof c->gravity);
  memcpy(c->base_T, m->base_T, sizeof c->base_T);
  memcpy(c->tip_T, m->tip_T, sizeof c->tip_T);
  c->load_fk_err = m->load_fk_err;
  memcpy(c->source, m->source, sizeof c->source);
  memcpy(c->notes, m->notes, sizeof c->notes);
  return c;
}

dyData* dy_makeData(const dyModel* m) {
  int n = m->n;
  size_t nd = (size_t)n * (9 + 3*6 + 36 + 24 + n + 1 + 16 + 3) + 64;
  dyData* d = calloc(1, sizeof(dyData) + nd * sizeof(double));
  if (!d) return NULL;
  double* b = (double*)(d + 1);
  d->n = n;
  d->R = b;  b += 9*n;
  d->p = b;  b += 3*n;
  d->w = b;  b += 3*n;
  d->wd = b; b += 3*n;
  d->vd = b; b += 3*n;
  d->f = b;  b += 3*n;
  d->nm = b; b += 3*n;
  d->ci = b; b += 36*n;
  d->cv = b; b += 24*n;
  d->H = b;  b += (size_t)n*n;
  d->b = b;  b += n;
  d->work = b; b += 16*n + 64;
  d->csa = b;
  for (int j = 0; j < n; j++) d->csa[3*j + 2] = NAN;
  return d;
}

void dy_freeData(dyData* d) { free(d); }

int dy_npar(const dyModel* m) { return (DY_NPAR_LINK + DY_NPAR_JNT) * m->n; }

static const char* const link_names[DY_NPAR_LINK] = {
  "XX", "XY", "XZ", "YY", "YZ", "ZZ", "MX", "MY", "MZ", "M"};
static const char* const jnt_names[DY_NPAR_JNT] = {"IA", "FV", "FC", "FO"};

void dy_parname(const dyModel* m, int k, char* buf, int bufsz) {
  int nl = DY_NPAR_LINK * m->n;
  if (k < nl)
    snprintf(buf, (size_t)bufsz, "%s%d", link_names[k % DY_NPAR_LINK], k / DY_NPAR_LINK + 1);
  else
    snprintf(buf, (size_t)bufsz, "%s%d", jnt_names[(k - nl) % DY_NPAR_JNT], (k - nl) / DY_NPAR_JNT + 1);
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
  double ca = cos(m->dh_alpha[j]), sa = sin(m->dh_alpha[j]);
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
