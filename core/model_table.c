/* dynid core: the model-table reader (CONVENTIONS.md section 3) and the
 * classic-to-modified DH conversion, plus dy_load_model's dispatch.
 *
 * Classic DH (frame j at the distal end of link j,
 *   T = Rz(theta_j) Tz(d_j) Tx(a_j) Rx(alpha_j)) becomes modified DH with
 *   alpha'_j = alpha_{j-1}, a'_j = a_{j-1} (alpha_0 = a_0 = 0), theta and d
 * unchanged; link j's centre of mass and inertia, given in classic frame j,
 * are carried into modified frame j by Tx(a_j) Rx(alpha_j), and the last
 * Tx(a_n) Rx(alpha_n) becomes the tip transform. */
#include "io.h"
#include "mathu.h"
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { C_JOINT, C_TYPE, C_ALPHA, C_A, C_THETA, C_D, C_M, C_CX, C_CY, C_CZ,
       C_IXX, C_IXY, C_IXZ, C_IYY, C_IYZ, C_IZZ, C_NREQ,
       C_IA = C_NREQ, C_FV, C_FC, C_FO, C_QMIN, C_QMAX, C_QDMAX, C_QDDMAX, C_TAUMAX,
       C_NAME, C_NALL };
static const char* const col_names[C_NALL] = {
  "joint", "type", "alpha", "a", "theta", "d", "m", "cx", "cy", "cz",
  "ixx", "ixy", "ixz", "iyy", "iyz", "izz",
  "ia", "fv", "fc", "fo", "qmin", "qmax", "qdmax", "qddmax", "taumax", "name"};

typedef struct {
  int type;
  double v[C_NALL];     /* numeric columns (NaN where absent) */
  char name[64];
} row_t;

/* classic frame j pose in classic frame j-1 */
static void classic_frame(double R[9], double p[3], double alpha, double a,
                          double theta, double d) {
  double Rz[9], Rx[9];
  dyu_rotz(Rz, theta);
  dyu_rotx(Rx, alpha);
  dyu_mulMat3(R, Rz, Rx);
  p[0] = a*cos(theta); p[1] = a*sin(theta); p[2] = d;
}

static double classic_fk_err(const dyModel* m, const row_t* rows) {
  double worst = 0;
  unsigned s = 12345u;
  double q[DY_MAXJ];
  for (int trial = 0; trial < 50; trial++) {
    for (int j = 0; j < m->n; j++) {
      s = s*1103515245u + 12345u;
      q[j] = ((double)(s >> 8) / (double)(1u << 24) - 0.5) * 2 * M_PI;
    }
    double R[9], p[3], Rj[9], pj[3], Rn[9], pn[3];
    dyu_eye3(R); p[0] = p[1] = p[2] = 0;
    for (int j = 0; j < m->n; j++) {
      int rev = rows[j].type == DY_REVOLUTE;
      classic_frame(Rj, pj, rows[j].v[C_ALPHA], rows[j].v[C_A],
                    rows[j].v[C_THETA] + (rev ? q[j] : 0), rows[j].v[C_D] + (rev ? 0 : q[j]));
      dyu_composePose(Rn, pn, R, p, Rj, pj);
      memcpy(R, Rn, sizeof R); memcpy(p, pn, sizeof p);
    }
    dy_fk(m, q, m->n, Rn, pn);
    for (int k = 0; k < 9; k++) worst = fmax(worst, fabs(Rn[k] - R[k]));
    for (int k = 0; k < 3; k++) worst = fmax(worst, fabs(pn[k] - p[k]));
  }
  return worst;
}

/* NULL if the inertia about the centre of mass (xx xy xz yy yz zz) is
 * positive semi-definite to a relative tolerance of 1e-9 of the trace; else
 * what is wrong. (The triangle inequalities are not demanded of a nominal
 * table: published tables such as the PUMA 560's give only the inertia
 * about the joint axis of a link; `dynid validate` reports them.) */
static const char* inertia_invalid(const double* s6) {
  double A[9], w[3];
  dyu_sym6ToMat(A, s6);
  double tr = fabs(A[0]) + fabs(A[4]) + fabs(A[8]), tol = 1e-9 * (tr > 0 ? tr : 1);
  if (LAPACKE_dsyev(LAPACK_COL_MAJOR, 'N', 'U', 3, A, 3, w) != 0) return "is not a valid tensor";
  if (w[0] < -tol) return "is not positive semi-definite";
  return NULL;
}

int dy_load_table(const char* path, const dyLoadOpt* opt, dyModel** out,
                  char* err, int errsz) {
  *out = NULL;
  dyCsv* c = dy_csv_open(path, err, errsz);
  if (!c) return -1;
  char** f; int nf;
  int r = dy_csv_next(c, &f, &nf, err, errsz);
  if (r <= 0) {
    if (r == 0) snprintf(err, (size_t)errsz, "%s: empty file, expected a model table header", path);
    dy_csv_close(c);
    return -1;
  }
  int col[C_NALL];
  for (int k = 0; k < C_NALL; k++) {
    col[k] = dy_csv_find(f, nf, col_names[k]);
    if (k < C_NREQ && col[k] < 0) {
      snprintf(err, (size_t)errsz, "%s:%ld: missing column '%s' in the header", path,
               dy_csv_line(c), col_names[k]);
      dy_csv_close(c);
      return -1;
    }
  }
  int has_fric = col[C_IA] >= 0 || col[C_FV] >= 0 || col[C_FC] >= 0 || col[C_FO] >= 0;
  row_t rows[DY_MAXJ];
  int n = 0;
  while ((r = dy_csv_next(c, &f, &nf, err, errsz)) > 0) {
    if (n == DY_MAXJ) {
      snprintf(err, (size_t)errsz, "%s:%ld: more than %d joints", path, dy_csv_line(c), DY_MAXJ);
      dy_csv_close(c);
      return -1;
    }
    row_t* w = rows + n;
    for (int k = 0; k < C_NALL; k++) w->v[k] = NAN;
    w->name[0] = 0;
    for (int k = 0; k < C_NALL; k++) {
      if (col[k] < 0) continue;
      if (col[k] >= nf) {
        snprintf(err, (size_t)errsz, "%s:%ld:%d: row has %d columns, the header has more: '%s' is missing",
                 path, dy_csv_line(c), nf + 1, nf, col_names[k]);
        dy_csv_close(c);
        return -1;
      }
      const char* s = f[col[k]];
      if (k == C_TYPE) {
        while (*s == ' ') s++;
        if ((s[0] == 'R' || s[0] == 'r') && (s[1] == 0 || s[1] == ' ' || s[1] == '\r')) w->type = DY_REVOLUTE;
        else if ((s[0] == 'P' || s[0] == 'p') && (s[1] == 0 || s[1] == ' ' || s[1] == '\r')) w->type = DY_PRISMATIC;
        else {
          snprintf(err, (size_t)errsz, "%s:%ld:%d: unknown joint type '%.20s' (expected R or P)",
                   path, dy_csv_line(c), col[k] + 1, s);
          dy_csv_close(c);
          return -1;
        }
        continue;
      }
      if (k == C_NAME) { snprintf(w->name, sizeof w->name, "%s", s); continue; }
      int limit = k >= C_QMIN && k <= C_TAUMAX;
      if (limit || k >= C_IA) {
        const char* t = s;
        while (*t == ' ') t++;
        if (*t == 0) { w->v[k] = limit ? NAN : 0; continue; }  /* empty optional cell */
      }
      if (dy_csv_double(c, s, col[k], limit, &w->v[k], err, errsz)) {
        dy_csv_close(c);
        return -1;
      }
    }
    if (w->v[C_JOINT] != n + 1) {
      snprintf(err, (size_t)errsz, "%s:%ld:%d: joint number %g, expected %d (rows base to tip)",
               path, dy_csv_line(c), col[C_JOINT] + 1, w->v[C_JOINT], n + 1);
      dy_csv_close(c);
      return -1;
    }
    const char* bad = inertia_invalid(w->v + C_IXX);
    if (bad) {
      snprintf(err, (size_t)errsz, "%s:%ld:%d: the inertia tensor ixx..izz %s", path, dy_csv_line(c),
               col[C_IXX] + 1, bad);
      dy_csv_close(c);
      return -1;
    }
    if (w->v[C_M] < 0) {
      snprintf(err, (size_t)errsz, "%s:%ld:%d: negative mass", path, dy_csv_line(c), col[C_M] + 1);
      dy_csv_close(c);
      return -1;
    }
    n++;
  }
  dy_csv_close(c);
  if (r < 0) return -1;
  if (n == 0) {
    snprintf(err, (size_t)errsz, "%s: no joints: the table has a header but no rows", path);
    return -1;
  }

  dyModel* m = dy_makeModel(n);
  if (!m) { snprintf(err, (size_t)errsz, "%s: out of memory", path); return -1; }
  snprintf(m->source, sizeof m->source, "%s", path);
  m->has_friction = has_fric;
  int classic = opt && opt->classic_dh;
  for (int j = 0; j < n; j++) {
    const double* v = rows[j].v;
    m->jnt_type[j] = rows[j].type;
    snprintf(m->jnt_name[j], 64, "%s", rows[j].name);
    m->dh_theta[j] = v[C_THETA];
    m->dh_d[j] = v[C_D];
    double c3[3] = {v[C_CX], v[C_CY], v[C_CZ]};
    double Ic[6] = {v[C_IXX], v[C_IXY], v[C_IXZ], v[C_IYY], v[C_IYZ], v[C_IZZ]};
    if (classic) {
      m->dh_alpha[j] = j ? rows[j-1].v[C_ALPHA] : 0;
      m->dh_a[j] = j ? rows[j-1].v[C_A] : 0;
      double Rx[9], cm[3], Icm[6];
      dyu_rotx(Rx, v[C_ALPHA]);
      dyu_mulMatVec3(cm, Rx, c3);
      cm[0] += v[C_A];
      dyu_rotSym6(Icm, Rx, Ic);
      memcpy(c3, cm, sizeof c3); memcpy(Ic, Icm, sizeof Ic);
    } else {
      m->dh_alpha[j] = v[C_ALPHA];
      m->dh_a[j] = v[C_A];
    }
    dy_linkpar_from_com(m->par + DY_NPAR_LINK*j, v[C_M], c3, Ic);
    for (int k = 0; k < DY_NPAR_LINK; k++)
      if (!isfinite(m->par[DY_NPAR_LINK*j + k]) || fabs(m->par[DY_NPAR_LINK*j + k]) > 1e12) {
        snprintf(err, (size_t)errsz, "%s: joint %d: mass, centre of mass or inertia out of range "
                 "(the inertia about O_%d exceeds 1e12 kg m^2)", path, j + 1, j + 1);
        dy_freeModel(m);
        return -1;
      }
    double* pj = m->par + DY_NPAR_LINK*n + DY_NPAR_JNT*j;
    pj[DY_IA] = isnan(v[C_IA]) ? 0 : v[C_IA];
    pj[DY_FV] = isnan(v[C_FV]) ? 0 : v[C_FV];
    pj[DY_FC] = isnan(v[C_FC]) ? 0 : v[C_FC];
    pj[DY_FO] = isnan(v[C_FO]) ? 0 : v[C_FO];
    if (!isnan(v[C_QMIN])) m->jnt_qmin[j] = v[C_QMIN];
    if (!isnan(v[C_QMAX])) m->jnt_qmax[j] = v[C_QMAX];
    if (!isnan(v[C_QDMAX])) m->jnt_qdmax[j] = v[C_QDMAX];
    if (!isnan(v[C_QDDMAX])) m->jnt_qddmax[j] = v[C_QDDMAX];
    if (!isnan(v[C_TAUMAX])) m->jnt_taumax[j] = v[C_TAUMAX];
  }
  if (classic) {
    dyu_rotx(m->tip_T, rows[n-1].v[C_ALPHA]);
    m->tip_T[9] = rows[n-1].v[C_A]; m->tip_T[10] = 0; m->tip_T[11] = 0;
    m->load_fk_err = classic_fk_err(m, rows);
  }
  if (opt && opt->has_gravity) memcpy(m->gravity, opt->gravity, sizeof m->gravity);
  *out = m;
  return 0;
}

int dy_load_model(const char* path, const dyLoadOpt* opt, dyModel** out,
                  char* err, int errsz) {
  size_t L = strlen(path);
  if (L >= 5 && !strcasecmp(path + L - 5, ".urdf")) {
    int r = dy_load_urdf(path, opt, out, err, errsz);
    if (!r && opt && opt->has_gravity) memcpy((*out)->gravity, opt->gravity, sizeof (*out)->gravity);
    return r;
  }
  return dy_load_table(path, opt, out, err, errsz);
}
