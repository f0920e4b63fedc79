/* SPDX-License-Identifier: MIT */
/* dynid core: the model-table reader (README.md, Model tables and files) and the
 * classic-to-modified DH conversion, plus dy_load_model's dispatch, and the
 * bounds-file reader dy_read_ellipsoids (the links' bounding ellipsoids,
 * the same six columns ell_cx..ell_rz a model table may carry).
 *
 * Two column sets hold the link parameters: the centre-of-mass form
 * m,cx,cy,cz,ixx..izz (m >= 0, inertia about the centre of mass positive
 * semi-definite: what a user writes) and the standard form m,mx,my,mz,
 * xx..zz (the ten parameters about O_j as they are: an identified
 * realisation may have m <= 0 with h != 0 or an indefinite inertia). The
 * "#!" directive lines before the header give gravity, base_T and tip_T
 * (io.h); a reader that does not know them sees comments.
 *
 * Classic DH (frame j at the distal end of link j,
 *   T = Rz(theta_j) Tz(d_j) Tx(a_j) Rx(alpha_j)) becomes modified DH with
 *   alpha'_j = alpha_{j-1}, a'_j = a_{j-1} (alpha_0 = a_0 = 0), theta and d
 * unchanged; link j's centre of mass and inertia, given in classic frame j,
 * are carried into modified frame j by Tx(a_j) Rx(alpha_j), and the last
 * Tx(a_n) Rx(alpha_n) becomes the tip transform. */
#include "core/io.h"
#include "core/transmission.h"
#include "core/mathu.h"
#include <lapacke.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { C_JOINT, C_TYPE, C_ALPHA, C_A, C_THETA, C_D, C_M,
       C_CX, C_CY, C_CZ, C_IXX, C_IXY, C_IXZ, C_IYY, C_IYZ, C_IZZ,    /* centre-of-mass form */
       C_MX, C_MY, C_MZ, C_XX, C_XY, C_XZ, C_YY, C_YZ, C_ZZ,          /* standard form */
       C_IA, C_FV, C_FC, C_FO, C_QMIN, C_QMAX, C_QDMAX, C_QDDMAX, C_TAUMAX,
       C_ELL_CX, C_ELL_CY, C_ELL_CZ, C_ELL_RX, C_ELL_RY, C_ELL_RZ,   /* bounding ellipsoid */
       C_NAME, C_NALL };
static const char* const col_names[C_NALL] = {
  "joint", "type", "alpha", "a", "theta", "d", "m", "cx", "cy", "cz",
  "ixx", "ixy", "ixz", "iyy", "iyz", "izz", "mx", "my", "mz", "xx", "xy", "xz", "yy", "yz", "zz",
  "ia", "fv", "fc", "fo", "qmin", "qmax", "qdmax", "qddmax", "taumax",
  "ell_cx", "ell_cy", "ell_cz", "ell_rx", "ell_ry", "ell_rz", "name"};

typedef struct {
  int type;
  double v[C_NALL];     /* numeric columns (NaN where absent) */
  char name[64];
} tableRow;

/* the #! directives of one table (see io.h) */
enum { D_GRAVITY, D_BASE, D_TIP, D_TRANS, D_MOTORS, D_N };
static const char* const dir_names[D_N] = {"gravity", "base", "tip", "transmission", "motors"};
/* numbers each takes; the last two as many as the table's joints decide
 * (n x n, 3 per coupled motor), at most these, checked after the rows */
static const int dir_count[D_N] = {3, 12, 12, DY_MAXJ * DY_MAXJ, DY_NPAR_MOT * DY_MAXJ};

typedef struct {
  const char* path;
  int header_line;      /* line of the header once read, else 0 */
  long line[D_N];       /* line of each directive, 0: absent */
  int count[D_N];       /* numbers each gave */
  double val[D_N - 2][12];
  double trans[DY_MAXJ * DY_MAXJ];   /* transmission R, row-major (n x n) */
  double motors[DY_NPAR_MOT * DY_MAXJ];   /* IAM FVM FCM of each coupled motor */
} tableDirectives;

static double* dir_store(tableDirectives* d, int k) {
  return k == D_TRANS ? d->trans : k == D_MOTORS ? d->motors : d->val[k];
}

/* "#! name, x1, x2, ..." -> d; errors "FILE:LINE:COL: ..." */
static int on_directive(void* ud, const char* text, long line, char* err, int errsz) {
  tableDirectives* d = ud;
  const char* s = strstr(text, "#!") + 2;
  while (*s == ' ' || *s == '\t') s++;
  int col = (int)(s - text) + 1;
  if (d->header_line) {
    dy_errpos(err, errsz, d->path, line, col, "directive after the header (line %d): #! lines go before it", d->header_line);
    return -1;
  }
  size_t L = strcspn(s, ", \t");
  int k = 0;
  while (k < D_N && !(strlen(dir_names[k]) == L && !strncasecmp(s, dir_names[k], L))) k++;
  if (k == D_N) {
    dy_errpos(err, errsz, d->path, line, col, "unknown directive '%.*s' (gravity, base, tip, transmission or motors)", (int)(L < 40 ? L : 40), s);
    return -1;
  }
  if (d->line[k]) {
    dy_errpos(err, errsz, d->path, line, col, "second '%s' directive (the first is on line %ld)", dir_names[k], d->line[k]);
    return -1;
  }
  const char* p = s + L;
  int cnt = 0;
  for (;;) {
    while (*p == ' ' || *p == '\t') p++;
    if (!*p) break;
    if (*p != ',') {
      dy_errpos(err, errsz, d->path, line, (int)(p - text) + 1, "expected ',' before '%.20s'", p);
      return -1;
    }
    p++;
    while (*p == ' ' || *p == '\t') p++;
    char* end;
    double x = strtod(p, &end);
    const char* e = end;
    while (*e == ' ' || *e == '\t') e++;
    if (end == p || (*e && *e != ',') || !isfinite(x)) {
      dy_errpos(err, errsz, d->path, line, (int)(p - text) + 1, "'%s': not a finite number: '%.*s'", dir_names[k], (int)strcspn(p, ","), p);
      return -1;
    }
    if (cnt == dir_count[k]) {
      dy_errpos(err, errsz, d->path, line, (int)(p - text) + 1, "'%s' takes %d numbers, found more", dir_names[k], dir_count[k]);
      return -1;
    }
    dir_store(d, k)[cnt++] = x;
    p = e;
  }
  d->count[k] = cnt;
  if (k >= D_TRANS) { d->line[k] = line; return 0; }   /* counted against n after the rows */
  if (cnt < dir_count[k]) {
    dy_errpos(err, errsz, d->path, line, (int)(p - text) + 1, "'%s' takes %d numbers, found %d", dir_names[k], dir_count[k], cnt);
    return -1;
  }
  if (k != D_GRAVITY) {   /* R^T R = 1 to 1e-9 and det R = +1 */
    const double* R = d->val[k];
    double RtR[9], worst = 0;
    dyu_mulMatTMat3(RtR, R, R);
    for (int i = 0; i < 9; i++) worst = fmax(worst, fabs(RtR[i] - (i % 4 == 0)));
    double det = R[0]*(R[4]*R[8] - R[5]*R[7]) - R[1]*(R[3]*R[8] - R[5]*R[6]) + R[2]*(R[3]*R[7] - R[4]*R[6]);
    if (worst > 1e-9 || det < 0) {
      dy_errpos(err, errsz, d->path, line, col, "'%s': r11..r33 is not a rotation matrix (%s %.3g; "
               "give 17 significant digits)", dir_names[k],
               det < 0 ? "determinant" : "largest entry of R^T R - 1", det < 0 ? det : worst);
      return -1;
    }
  }
  d->line[k] = line;
  return 0;
}

/* append one line to m->notes (dropped when full) */
static void add_note(dyModel* m, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_note(dyModel* m, const char* fmt, ...) {
  size_t L = strlen(m->notes);
  va_list ap;
  va_start(ap, fmt);
  int w = vsnprintf(m->notes + L, sizeof m->notes - L, fmt, ap);
  va_end(ap);
  if (w < 0 || (size_t)w + 1 >= sizeof m->notes - L) { m->notes[L] = 0; return; }
  m->notes[L + (size_t)w] = '\n';
  m->notes[L + (size_t)w + 1] = 0;
}

/* the note for --gravity g when the file says fg (differing by more than
 * 1e-9 of the larger) */
static void gravity_note(dyModel* m, const double g[3], const double fg[3]) {
  double dd = 0, sc = 0;
  for (int k = 0; k < 3; k++) { dd = fmax(dd, fabs(g[k] - fg[k])); sc = fmax(sc, fmax(fabs(g[k]), fabs(fg[k]))); }
  if (dd <= 1e-9 * sc) return;
  add_note(m, "--gravity %.6g,%.6g,%.6g overrides the model file's gravity %.6g,%.6g,%.6g m/s^2",
           g[0], g[1], g[2], fg[0], fg[1], fg[2]);
}

/* classic frame j pose in classic frame j-1 */
static void classic_frame(double R[9], double p[3], double alpha, double a,
                          double theta, double d) {
  double Rz[9], Rx[9];
  dyu_rotz(Rz, theta);
  dyu_rotx(Rx, alpha);
  dyu_mulMat3(R, Rz, Rx);
  p[0] = a*cos(theta); p[1] = a*sin(theta); p[2] = d;
}

static double classic_fk_err(const dyModel* m, const tableRow* rows) {
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

int dy_link_consistent(const double par10[10]) {
  double A[16], w[4];
  dy_pseudo_inertia(par10, A);
  if (LAPACKE_dsyev(LAPACK_COL_MAJOR, 'N', 'U', 4, A, 4, w) != 0) return 0;
  double big = fmax(fabs(w[0]), fabs(w[3]));
  return w[0] >= -1e-9 * big;
}

int dy_link_comform(const double par10[10]) {
  double mass, c[3], Ic[6];
  if (!(par10[DY_M] >= 0)) return 0;
  if (par10[DY_M] == 0 && (par10[DY_MX] != 0 || par10[DY_MY] != 0 || par10[DY_MZ] != 0)) return 0;
  dy_linkpar_to_com(par10, &mass, c, Ic);
  return inertia_invalid(Ic) == NULL;
}

static int load_table(const char* path, const dyLoadOpt* opt, dyModel** out, char* err, int errsz);

/* the reader, with its error kept on one line: a message that quotes a
 * cell (a quoted field may span lines) shows its control characters as '?' */
int dy_load_table(const char* path, const dyLoadOpt* opt, dyModel** out,
                  char* err, int errsz) {
  int r = load_table(path, opt, out, err, errsz);
  if (r) for (char* s = err; *s; s++) if ((unsigned char)*s < 32) *s = '?';
  return r;
}

/* ------------------------------------------------------------ the table
 * load_table reads in stages: the header (which columns, which form), the
 * rows (one tableRow per joint, each checked as it is read), then the model
 * built from the rows (link parameters, joint parameters, limits), the
 * directives applied and the notes added. Every error names FILE:LINE[:COL]. */

/* what the header says: the column of each name (-1: absent) and the form */
typedef struct {
  const char* path;
  int col[C_NALL];
  int std;              /* 1: standard form m,mx..zz; 0: centre-of-mass form */
  int has_fric;         /* any of ia, fv, fc, fo present */
  int has_ell;          /* the six ellipsoid columns ell_cx..ell_rz present */
  int classic;          /* --dh */
} tableHeader;

/* The six ellipsoid columns ell_cx..ell_rz at col[0..5] (0-based, -1:
 * absent): all six or, unless required, none; else an error at the header
 * line (column of one that is there, else 1). */
static int ell_columns(const char* path, long line, const int col[6], int required, char* err, int errsz) {
  int cnt = 0, first = -1, miss = -1;
  for (int k = 0; k < 6; k++) {
    if (col[k] >= 0) { cnt++; if (first < 0) first = k; }
    else if (miss < 0) miss = k;
  }
  if (cnt == 6 || (cnt == 0 && !required)) return 0;
  dy_errpos(err, errsz, path, line, first >= 0 ? col[first] + 1 : 1, "missing column '%s' in the header%s: the bounding ellipsoid "
           "takes all six columns ell_cx,ell_cy,ell_cz,ell_rx,ell_ry,ell_rz%s", col_names[C_ELL_CX + miss],
           first >= 0 ? " (it has the other ellipsoid columns)" : "", required ? "" : " or none");
  return -1;
}

/* Value x of ellipsoid entry k (0..2 centre, 3..5 semi-axes [m]) in
 * column col (0-based) of the row on line: a semi-axis > 0 and every |x| <=
 * DY_MAXLEN (x is finite: the CSV reader refuses nan and inf); 0, or -1
 * with the error at the cell. */
static int ell_value(const char* path, long line, int col, int k, double x, char* err, int errsz) {
  if (k >= 3 && !(x > 0))
    dy_errpos(err, errsz, path, line, col + 1, "'%s' = %g m: a semi-axis must be > 0",
             col_names[C_ELL_CX + k], x);
  else if (!(fabs(x) <= DY_MAXLEN))
    dy_errpos(err, errsz, path, line, col + 1, "'%s' = %g m: a length beyond %g m (a unit error?)", col_names[C_ELL_CX + k], x, DY_MAXLEN);
  else return 0;
  return -1;
}

/* The six ellipsoid cells of one row, v[0..5] (NaN: empty) in columns
 * col[0..5]: all six empty (*given = 0) or all six valid (*given = 1,
 * ell_value); else an error at the first cell that is not. */
static int ell_cells(dyCsv* c, const char* path, const double v[6], const int col[6], int* given,
                     char* err, int errsz) {
  int empty = 0;
  for (int k = 0; k < 6; k++) empty += isnan(v[k]) != 0;
  *given = empty == 0;
  if (empty == 6) return 0;
  for (int k = 0; k < 6; k++) {
    if (isnan(v[k])) {
      dy_errpos(err, errsz, path, dy_csv_line(c), col[k] + 1, "'%s' is empty while other ellipsoid cells of the row are not: "
               "give all six or leave all six empty", col_names[C_ELL_CX + k]);
      return -1;
    }
    if (ell_value(path, dy_csv_line(c), col[k], k, v[k], err, errsz)) return -1;
  }
  return 0;
}

/* The header: the form is standard when any of mx..zz is present, and then
 * none of cx..izz may be (either form, not both); --dh needs the
 * centre-of-mass form; joint..m and the columns of the form are required. */
static int read_header(dyCsv* c, const dyLoadOpt* opt, tableHeader* h, char* err, int errsz) {
  char** f; int nf;
  int r = dy_csv_next(c, &f, &nf, err, errsz);
  if (r <= 0) {
    if (r == 0) snprintf(err, (size_t)errsz, "%s: empty file, expected a model table header", h->path);
    return -1;
  }
  for (int k = 0; k < C_NALL; k++) h->col[k] = dy_csv_find(f, nf, col_names[k]);
  h->std = 0;
  for (int k = C_MX; k <= C_ZZ; k++) h->std |= h->col[k] >= 0;
  for (int k = C_CX; h->std && k <= C_IZZ; k++)
    if (h->col[k] >= 0) {
      dy_errpos(err, errsz, h->path, dy_csv_line(c), h->col[k] + 1, "column '%s' with the standard-form columns mx..zz: give either "
               "cx,cy,cz,ixx..izz (about the centre of mass) or mx,my,mz,xx..zz (about O_j)", col_names[k]);
      return -1;
    }
  if (h->std && opt && opt->classic_dh) {
    dy_errpos(err, errsz, h->path, dy_csv_line(c), 0, "--dh needs the centre-of-mass columns cx,cy,cz,ixx..izz, not "
             "the standard form mx..zz");
    return -1;
  }
  for (int k = 0; k <= C_ZZ; k++) {
    int need = k < C_CX || (h->std ? k >= C_MX : k <= C_IZZ);
    if (need && h->col[k] < 0) {
      dy_errpos(err, errsz, h->path, dy_csv_line(c), 0, "missing column '%s' in the header", col_names[k]);
      return -1;
    }
  }
  h->has_fric = h->col[C_IA] >= 0 || h->col[C_FV] >= 0 || h->col[C_FC] >= 0 || h->col[C_FO] >= 0;
  h->classic = opt && opt->classic_dh;
  if (ell_columns(h->path, dy_csv_line(c), h->col + C_ELL_CX, 0, err, errsz)) return -1;
  h->has_ell = h->col[C_ELL_CX] >= 0;
  return 0;
}

/* joint type cell: R or P (any case), blanks around it; 0 or -1 */
static int parse_type(const char* s, int* type) {
  while (*s == ' ') s++;
  if ((s[0] == 'R' || s[0] == 'r') && (s[1] == 0 || s[1] == ' ' || s[1] == '\r')) *type = DY_REVOLUTE;
  else if ((s[0] == 'P' || s[0] == 'p') && (s[1] == 0 || s[1] == ' ' || s[1] == '\r')) *type = DY_PRISMATIC;
  else return -1;
  return 0;
}

/* The cells of one row into w, in column-name order: type R|P, name as
 * text, numbers finite; an empty optional cell is 0 (ia..fo) or NaN (the
 * limits qmin..taumax, which may also be infinite, and the ellipsoid
 * ell_cx..ell_rz). */
static int read_cells(dyCsv* c, const tableHeader* h, char** f, int nf, tableRow* w, char* err, int errsz) {
  for (int k = 0; k < C_NALL; k++) w->v[k] = NAN;
  w->name[0] = 0;
  for (int k = 0; k < C_NALL; k++) {
    int ck = h->col[k];
    if (ck < 0) continue;
    if (ck >= nf) {
      dy_errpos(err, errsz, h->path, dy_csv_line(c), nf + 1, "row has %d columns, the header has more: '%s' is missing", nf, col_names[k]);
      return -1;
    }
    const char* s = f[ck];
    if (k == C_TYPE) {
      if (parse_type(s, &w->type)) {
        while (*s == ' ') s++;
        dy_errpos(err, errsz, h->path, dy_csv_line(c), ck + 1, "unknown joint type '%.20s' (expected R or P)", s);
        return -1;
      }
      continue;
    }
    if (k == C_NAME) { snprintf(w->name, sizeof w->name, "%s", s); continue; }
    int limit = k >= C_QMIN && k <= C_TAUMAX, ell = k >= C_ELL_CX && k <= C_ELL_RZ;
    if (limit || k >= C_IA) {
      const char* t = s;
      while (*t == ' ') t++;
      if (*t == 0) { w->v[k] = limit || ell ? NAN : 0; continue; }  /* empty optional cell */
    }
    if (dy_csv_double(c, s, ck, limit, &w->v[k], err, errsz)) return -1;
  }
  return 0;
}

/* Row n (0-based) is joint n + 1, base to tip; in the centre-of-mass form
 * the inertia about the centre of mass is positive semi-definite
 * (inertia_invalid) and the mass is not negative; the ellipsoid cells all
 * six empty or all six valid (ell_cells), and with --dh only where alpha_j
 * is a multiple of pi/2 (link_from_row). */
static int check_row(dyCsv* c, const tableHeader* h, const tableRow* w, int n, char* err, int errsz) {
  if (w->v[C_JOINT] != n + 1) {
    dy_errpos(err, errsz, h->path, dy_csv_line(c), h->col[C_JOINT] + 1, "joint number %g, expected %d (rows base to tip)", w->v[C_JOINT], n + 1);
    return -1;
  }
  const char* bad = h->std ? NULL : inertia_invalid(w->v + C_IXX);
  if (bad) {
    dy_errpos(err, errsz, h->path, dy_csv_line(c), h->col[C_IXX] + 1, "the inertia tensor ixx..izz %s", bad);
    return -1;
  }
  if (!h->std && w->v[C_M] < 0) {
    dy_errpos(err, errsz, h->path, dy_csv_line(c), h->col[C_M] + 1, "negative mass");
    return -1;
  }
  int given = 0;
  if (h->has_ell && ell_cells(c, h->path, w->v + C_ELL_CX, h->col + C_ELL_CX, &given, err, errsz)) return -1;
  if (given && h->classic && dy_twist_class(w->v[C_ALPHA]) == DY_TWIST_GENERAL) {
    dy_errpos(err, errsz, h->path, dy_csv_line(c), h->col[C_ELL_CX] + 1, "--dh: a bounding ellipsoid of a link whose alpha is not a "
             "multiple of pi/2 has no axis-aligned form in the modified-DH frame; give the table in "
             "modified DH");
    return -1;
  }
  return 0;
}

/* every data row into rows[*n] (at most DY_MAXJ); 0 or -1 */
static int read_rows(dyCsv* c, const tableHeader* h, tableRow* rows, int* n, char* err, int errsz) {
  char** f; int nf, r;
  *n = 0;
  while ((r = dy_csv_next(c, &f, &nf, err, errsz)) > 0) {
    if (*n == DY_MAXJ) {
      dy_errpos(err, errsz, h->path, dy_csv_line(c), 0, "more than %d joints", DY_MAXJ);
      return -1;
    }
    if (read_cells(c, h, f, nf, rows + *n, err, errsz) || check_row(c, h, rows + *n, *n, err, errsz))
      return -1;
    (*n)++;
  }
  if (r < 0) return -1;
  if (*n == 0) {
    snprintf(err, (size_t)errsz, "%s: no joints: the table has a header but no rows", h->path);
    return -1;
  }
  return 0;
}

/* Link j's geometry, ten parameters and bounding ellipsoid from its row.
 * Classic DH: alpha'_j = alpha_{j-1}, a'_j = a_{j-1}, and the centre of
 * mass, inertia and ellipsoid (classic frame j) carried into modified
 * frame j by Tx(a_j) Rx(alpha_j): c' = Rx c + (a_j, 0, 0), I' = Rx I Rx^T,
 * the semi-axes permuted (alpha_j a multiple of pi/2: exact). The
 * standard form is copied as it is; the centre-of-mass form becomes
 * m, m c, I_c + m (|c|^2 1 - c c^T) (dy_linkpar_from_com). */
static void link_from_row(dyModel* m, const tableRow* rows, int j, int classic, int std) {
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
  const double* e = v + C_ELL_CX;
  if (!isnan(e[0])) {
    double* le = m->link_ell + 6*j;
    memcpy(le, e, 6 * sizeof(double));
    if (classic) {   /* c' = Rx(alpha_j) c + (a_j, 0, 0), Rx a signed permutation (check_row) */
      dyTwist t = dy_twist_class(v[C_ALPHA]);
      double ca = t == DY_TWIST_0 ? 1 : t == DY_TWIST_PI ? -1 : 0;
      double sa = t == DY_TWIST_PI2 ? 1 : t == DY_TWIST_MPI2 ? -1 : 0;
      le[0] = e[0] + v[C_A];
      le[1] = ca*e[1] - sa*e[2];
      le[2] = sa*e[1] + ca*e[2];
      if (sa != 0) { le[4] = e[5]; le[5] = e[4]; }
    }
  }
  double* pl = m->par + DY_NPAR_LINK*j;
  if (std) {
    for (int k = 0; k < 6; k++) pl[DY_XX + k] = v[C_XX + k];
    for (int k = 0; k < 3; k++) pl[DY_MX + k] = v[C_MX + k];
    pl[DY_M] = v[C_M];
  } else dy_linkpar_from_com(pl, v[C_M], c3, Ic);
}

/* Joint j's parameters IA FV FC FO (absent: 0) and its limits (absent:
 * the model's defaults are kept). */
static void joint_from_row(dyModel* m, const tableRow* row, int j) {
  const double* v = row->v;
  double* pj = m->par + DY_NPAR_LINK*m->n + DY_NPAR_JNT*j;
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

/* The model from the rows: each link's parameters finite and at most 1e12
 * in magnitude (SI units), else an error; classic DH gets the tip
 * transform Tx(a_n) Rx(alpha_n) and its forward-kinematics check. NULL
 * with err set. */
static dyModel* build_model(const tableHeader* h, const tableRow* rows, int n, int classic, char* err, int errsz) {
  dyModel* m = dy_make_model(n);
  if (!m) { snprintf(err, (size_t)errsz, "%s: out of memory", h->path); return NULL; }
  snprintf(m->source, sizeof m->source, "%s", h->path);
  m->has_friction = h->has_fric;
  for (int j = 0; j < n; j++) {
    link_from_row(m, rows, j, classic, h->std);
    for (int k = 0; k < DY_NPAR_LINK; k++)
      if (!isfinite(m->par[DY_NPAR_LINK*j + k]) || fabs(m->par[DY_NPAR_LINK*j + k]) > 1e12) {
        snprintf(err, (size_t)errsz, "%s: joint %d: mass, centre of mass or inertia out of range "
                 "(the inertia about O_%d exceeds 1e12 kg m^2)", h->path, j + 1, j + 1);
        dy_free_model(m);
        return NULL;
      }
    joint_from_row(m, rows + j, j);
  }
  dy_set_const(m);
  if (classic) {
    dyu_rotx(m->tip_T, rows[n-1].v[C_ALPHA]);
    m->tip_T[9] = rows[n-1].v[C_A]; m->tip_T[10] = 0; m->tip_T[11] = 0;
    m->load_fk_err = classic_fk_err(m, rows);
  }
  return m;
}

/* The directives: base_T as given, tip_T = tip_T(table) * tip (the tip in
 * the table's frame n, the classic one with --dh), gravity as given. */
static void apply_directives(dyModel* m, const tableDirectives* dv) {
  if (dv->line[D_BASE]) memcpy(m->base_T, dv->val[D_BASE], sizeof m->base_T);
  if (dv->line[D_TIP]) {
    double T[12];
    dyu_composePose(T, T + 9, m->tip_T, m->tip_T + 9, dv->val[D_TIP], dv->val[D_TIP] + 9);
    memcpy(m->tip_T, T, sizeof T);
  }
  if (dv->line[D_GRAVITY]) memcpy(m->gravity, dv->val[D_GRAVITY], sizeof m->gravity);
}

/* #! transmission (n x n numbers, core/transmission.h) and #! motors (IAM
 * FVM FCM of each coupled motor, in order); 0 or -1 (err set) */
static int apply_transmission(dyModel* m, const tableDirectives* dv, char* err, int errsz) {
  const int n = m->n;
  if (!dv->line[D_TRANS]) {
    if (dv->line[D_MOTORS])
      dy_errpos(err, (size_t)errsz, dv->path, dv->line[D_MOTORS], 0, "'motors' without a 'transmission' directive");
    return dv->line[D_MOTORS] ? -1 : 0;
  }
  if (dv->count[D_TRANS] != n*n) {
    dy_errpos(err, (size_t)errsz, dv->path, dv->line[D_TRANS], 0, "'transmission' takes %d numbers (n x n for %d "
              "joints, row k for motor k), found %d", n*n, n, dv->count[D_TRANS]);
    return -1;
  }
  char e2[DY_ERRSZ];
  if (dy_set_transmission(m, dv->trans, e2, sizeof e2)) {
    const char* what = strstr(e2, "singular");
    dy_errpos(err, (size_t)errsz, dv->path, dv->line[D_TRANS], 0, "%s", what ? what : e2);
    return -1;
  }
  if (!dv->line[D_MOTORS]) return 0;
  if (dv->count[D_MOTORS] != DY_NPAR_MOT * m->nmot) {
    dy_errpos(err, (size_t)errsz, dv->path, dv->line[D_MOTORS], 0, "'motors' takes %d numbers (IAM, FVM, FCM of each "
              "of the %d coupled motors), found %d", DY_NPAR_MOT * m->nmot, m->nmot, dv->count[D_MOTORS]);
    return -1;
  }
  memcpy(m->par + DY_NPL*n, dv->motors, sizeof(double) * (size_t)(DY_NPAR_MOT * m->nmot));
  return 0;
}

/* standard form: one note listing the links whose pseudo-inertia is not
 * positive semi-definite (dy_link_consistent) */
static void note_inconsistent(dyModel* m) {
  char list[200] = "";
  int bad = 0;
  for (int j = 0; j < m->n; j++)
    if (!dy_link_consistent(m->par + DY_NPAR_LINK*j)) {
      size_t L = strlen(list);
      snprintf(list + L, sizeof list - L, "%s%d", bad++ ? ", " : "", j + 1);
    }
  if (bad)
    add_note(m, "link%s %s: parameters not physically consistent (the pseudo-inertia "
             "[tr(J)/2 1 - J, h; h^T, m] is not positive semi-definite)", bad > 1 ? "s" : "", list);
}

static int load_table(const char* path, const dyLoadOpt* opt, dyModel** out, char* err, int errsz) {
  *out = NULL;
  dyCsv* c = dy_csv_open(path, err, errsz);
  if (!c) return -1;
  tableDirectives dv;
  memset(&dv, 0, sizeof dv);
  dv.path = path;
  dy_csv_on_directive(c, on_directive, &dv);
  tableHeader h;
  h.path = path;
  tableRow rows[DY_MAXJ];
  int n = 0;
  if (read_header(c, opt, &h, err, errsz)) { dy_csv_close(c); return -1; }
  dv.header_line = (int)dy_csv_line(c);
  int r = read_rows(c, &h, rows, &n, err, errsz);
  dy_csv_close(c);
  if (r) return -1;
  dyModel* m = build_model(&h, rows, n, opt && opt->classic_dh, err, errsz);
  if (!m) return -1;
  apply_directives(m, &dv);
  if (apply_transmission(m, &dv, err, errsz)) { dy_free_model(m); return -1; }
  char what[160];
  if (dy_length_bad(m, DY_MAXLEN, what, sizeof what)) {
    snprintf(err, (size_t)errsz, "%s: %s (a unit error or a corrupt cell?)", h.path, what);
    dy_free_model(m);
    return -1;
  }
  if (h.std) note_inconsistent(m);
  if (opt && opt->has_gravity) {
    if (dv.line[D_GRAVITY]) gravity_note(m, opt->gravity, m->gravity);
    memcpy(m->gravity, opt->gravity, sizeof m->gravity);
  }
  *out = m;
  return 0;
}

int dy_load_model(const char* path, const dyLoadOpt* opt, dyModel** out,
                  char* err, int errsz) {
  size_t L = strlen(path);
  if (L >= 5 && !strcasecmp(path + L - 5, ".urdf")) {
    /* read with the file's gravity, then override it (with a note) */
    dyLoadOpt o;
    if (opt) o = *opt; else memset(&o, 0, sizeof o);
    o.has_gravity = 0;
    int r = dy_load_urdf(path, &o, out, err, errsz);
    if (!r && opt && opt->has_gravity) {
      gravity_note(*out, opt->gravity, (*out)->gravity);
      memcpy((*out)->gravity, opt->gravity, sizeof (*out)->gravity);
    }
    return r;
  }
  return dy_load_table(path, opt, out, err, errsz);
}

/* ------------------------------------------------------------ bounds file
 * dy_read_ellipsoids: the header by name (joint and the six ellipsoid
 * columns, others ignored: a model table works), then one row per listed
 * joint, checked cell by cell like the model table's; the result is copied
 * into ell only when the whole file is read. */
int dy_read_ellipsoids(const char* path, const dyModel* m, double* ell, char* err, int errsz) {
  dyCsv* c = dy_csv_open(path, err, errsz);
  if (!c) return -1;
  double e[6 * DY_MAXJ];
  long seen[DY_MAXJ];   /* line of each joint's row, 0: not yet */
  int col[7], r;
  char** f; int nf;
  memset(e, 0, sizeof e);
  memset(seen, 0, sizeof seen);
  if ((r = dy_csv_next(c, &f, &nf, err, errsz)) <= 0) {
    if (r == 0) snprintf(err, (size_t)errsz, "%s: empty file, expected the header "
                         "joint,ell_cx,ell_cy,ell_cz,ell_rx,ell_ry,ell_rz", path);
    goto fail;
  }
  col[6] = dy_csv_find(f, nf, "joint");
  for (int k = 0; k < 6; k++) col[k] = dy_csv_find(f, nf, col_names[C_ELL_CX + k]);
  if (col[6] < 0) {
    dy_errpos(err, errsz, path, dy_csv_line(c), 1, "missing column 'joint' in the header");
    goto fail;
  }
  if (ell_columns(path, dy_csv_line(c), col, 1, err, errsz)) goto fail;
  int need = col[6];
  for (int k = 0; k < 6; k++) if (col[k] > need) need = col[k];
  while ((r = dy_csv_next(c, &f, &nf, err, errsz)) > 0) {
    long line = dy_csv_line(c);
    if (nf <= need) {
      dy_errpos(err, errsz, path, line, nf + 1, "row has %d columns, the header has more", nf);
      goto fail;
    }
    double jd, v[6];
    if (dy_csv_double(c, f[col[6]], col[6], 0, &jd, err, errsz)) goto fail;
    if (jd != floor(jd) || jd < 1 || jd > m->n) {
      dy_errpos(err, errsz, path, line, col[6] + 1, "joint %g is not a joint of the model, which has %d (1..%d)", jd, m->n, m->n);
      goto fail;
    }
    int j = (int)jd - 1;
    if (seen[j]) {
      dy_errpos(err, errsz, path, line, col[6] + 1, "joint %d given twice (also on line %ld)",
               j + 1, seen[j]);
      goto fail;
    }
    seen[j] = line;
    for (int k = 0; k < 6; k++) {
      const char* s = f[col[k]];
      while (*s == ' ') s++;
      if (!*s) { v[k] = NAN; continue; }
      if (dy_csv_double(c, f[col[k]], col[k], 0, v + k, err, errsz)) goto fail;
    }
    int given;
    if (ell_cells(c, path, v, col, &given, err, errsz)) goto fail;
    if (given) memcpy(e + 6*j, v, sizeof v);
  }
  if (r < 0) goto fail;
  dy_csv_close(c);
  memcpy(ell, e, 6 * (size_t)m->n * sizeof(double));
  return 0;
fail:
  dy_csv_close(c);
  return -1;
}
