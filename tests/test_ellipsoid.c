/* SPDX-License-Identifier: MIT */
/* dynid tests: the links' bounding ellipsoids (dyModel.link_ell).
 *
 * 1. Model table: ellipsoids written (columns ell_cx..ell_rz after the
 *    limits, before name; empty cells for a link without) read back
 *    bit-exactly; no such columns for a model without; the reader's errors
 *    (some of the six columns, a semi-axis <= 0, a row with some cells
 *    empty, a length beyond DY_MAXLEN, --dh on a general twist) at
 *    FILE:ROW:COL, and --dh on a quarter-turn twist carried exactly; the
 *    writers refuse an invalid ellipsoid.
 * 2. URDF: random URDFs with box, cylinder and sphere primitives at random
 *    origins on random joint axes, a fixed child link and a locked
 *    prismatic joint merged into link 1, visual primitives only on link 2
 *    and on a locked revolute child of it (collision: a mesh), meshes only
 *    on link 3, nothing on link 4, geometry on the base
 *    and on a link fixed to it (ground), and far-away visual boxes where
 *    collision primitives exist. Checked independently of the reader: each
 *    primitive's corners and surface points (its pose chained from the
 *    URDF numbers at q = 0 in the test, mapped into frame j with dy_fk) lie
 *    inside the ellipsoid, and in each axis of frame j the extreme points
 *    reach the faces of the ellipsoid's inscribed box (c +- r/sqrt(3)), so
 *    it is not loose; no note. Written as a URDF and as a table
 *    and read back: the same ellipsoids. Malformed primitives are errors.
 * 3. The shipped URDFs: kuka_lwr4 (links 1-5 and 7 from collision
 *    primitives, link 6 has meshes only; links 1 and 7 checked against the
 *    file's numbers), gen3 (no <collision> or <visual>: none, no note).
 * 4. dy_read_ellipsoids: columns by name in any order and case, rows in any
 *    order, joints not listed and empty rows none, a model table written
 *    by dynid read as one; each error with its FILE:ROW:COL, ell untouched. */
#include "testhelp.h"
#include "core/model.h"
#include "core/io.h"
#include "core/mathu.h"
#include <string.h>
#include <sys/stat.h>

#define DIR "build/tests/ellipsoid"

static void write_text(const char* path, const char* text) {
  FILE* f = fopen(path, "w");
  if (f) { fputs(text, f); fclose(f); }
}

/* ------------------------------------------------------------ poses */

typedef struct { double R[9], p[3]; } tpose;

static tpose tp_mul(tpose a, tpose b) {
  tpose c;
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) c.R[3*i+j] = a.R[3*i]*b.R[j] + a.R[3*i+1]*b.R[3+j] + a.R[3*i+2]*b.R[6+j];
    c.p[i] = a.p[i] + a.R[3*i]*b.p[0] + a.R[3*i+1]*b.p[1] + a.R[3*i+2]*b.p[2];
  }
  return c;
}

static tpose tp_eye(void) {
  tpose c;
  memset(&c, 0, sizeof c);
  c.R[0] = c.R[4] = c.R[8] = 1;
  return c;
}

/* URDF origin: R = Rz(yaw) Ry(pitch) Rx(roll), multiplied out here */
static tpose tp_origin(const double xyz[3], const double rpy[3]) {
  double X[9] = {1, 0, 0, 0, cos(rpy[0]), -sin(rpy[0]), 0, sin(rpy[0]), cos(rpy[0])};
  double Y[9] = {cos(rpy[1]), 0, sin(rpy[1]), 0, 1, 0, -sin(rpy[1]), 0, cos(rpy[1])};
  double Z[9] = {cos(rpy[2]), -sin(rpy[2]), 0, sin(rpy[2]), cos(rpy[2]), 0, 0, 0, 1};
  tpose x = tp_eye(), y = tp_eye(), z = tp_eye();
  memcpy(x.R, X, sizeof X); memcpy(y.R, Y, sizeof Y); memcpy(z.R, Z, sizeof Z);
  tpose c = tp_mul(z, tp_mul(y, x));
  memcpy(c.p, xyz, sizeof c.p);
  return c;
}

/* rotation by q about the unit axis u: cos q 1 + sin q [u]x + (1 - cos q) u u^T */
static tpose tp_axis(const double u[3], double q) {
  tpose c = tp_eye();
  double K[9] = {0, -u[2], u[1], u[2], 0, -u[0], -u[1], u[0], 0};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) c.R[3*i+j] = cos(q)*(i == j) + sin(q)*K[3*i+j] + (1 - cos(q))*u[i]*u[j];
  return c;
}

/* ------------------------------------------------------------ primitives */

enum { P_BOX, P_SPHERE, P_CYL, P_MESH };
typedef struct {
  int link, visual, kind;   /* link index of the generated URDF, 1: <visual>, shape */
  double size[3];           /* box: size; sphere: radius; cylinder: radius, length */
  double xyz[3], rpy[3];    /* <origin> */
} gprim;

#define MAXPTS 400

/* points of primitive p at world pose W, in the frame (Rf, pf) (world):
 * box corners; sphere centre +- r along the frame's axes and 60 more
 * surface points; cylinder: 64 points on each rim and, for each frame
 * axis, the rim points farthest along +-it (exact extremes) */
static int prim_points(const gprim* g, tpose W, const double Rf[9], const double pf[3], double* out) {
  double loc[3 * MAXPTS];
  int np = 0;
  double ax[3][3];   /* frame axes in the primitive's local frame: W.R^T Rf e_k */
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < 3; i++) ax[k][i] = W.R[i]*Rf[k] + W.R[3+i]*Rf[3+k] + W.R[6+i]*Rf[6+k];
  if (g->kind == P_BOX) {
    for (int c = 0; c < 8; c++)
      for (int i = 0; i < 3; i++) loc[3*c + i] = ((c >> i) & 1 ? 0.5 : -0.5) * g->size[i];
    np = 8;
  } else if (g->kind == P_SPHERE) {
    double r = g->size[0];
    for (int k = 0; k < 3; k++)
      for (int s = -1; s <= 1; s += 2, np++)
        for (int i = 0; i < 3; i++) loc[3*np + i] = s * r * ax[k][i];
    for (int t = 0; t < 60; t++, np++) {
      double z = th_uniform(-1, 1), ph = th_uniform(0, 2*M_PI), s = sqrt(1 - z*z);
      loc[3*np] = r*s*cos(ph); loc[3*np+1] = r*s*sin(ph); loc[3*np+2] = r*z;
    }
  } else {
    double r = g->size[0], hl = 0.5 * g->size[1];
    for (int t = 0; t < 64; t++)
      for (int s = -1; s <= 1; s += 2, np++) {
        loc[3*np] = r*cos(2*M_PI*t/64); loc[3*np+1] = r*sin(2*M_PI*t/64); loc[3*np+2] = s*hl;
      }
    for (int k = 0; k < 3; k++) {
      double h = hypot(ax[k][0], ax[k][1]);
      for (int s = -1; s <= 1; s += 2) {
        loc[3*np] = h > 0 ? s*r*ax[k][0]/h : 0;
        loc[3*np+1] = h > 0 ? s*r*ax[k][1]/h : 0;
        loc[3*np+2] = s*hl*(ax[k][2] >= 0 ? 1 : -1);
        np++;
      }
    }
  }
  for (int t = 0; t < np; t++) {
    double w[3];
    for (int i = 0; i < 3; i++)
      w[i] = W.p[i] + W.R[3*i]*loc[3*t] + W.R[3*i+1]*loc[3*t+1] + W.R[3*i+2]*loc[3*t+2] - pf[i];
    for (int k = 0; k < 3; k++) out[3*t + k] = Rf[k]*w[0] + Rf[3+k]*w[1] + Rf[6+k]*w[2];
  }
  return np;
}

/* Link j (0-based) of m against the primitives prims[] at world poses
 * W[] (np of them): every point inside the ellipsoid, and the extremes of
 * the points in each axis of frame j at c +- r/sqrt(3) to 1e-9 m. */
static void check_body(const char* what, const dyModel* m, int j, const gprim* prims, const tpose* W, int np) {
  double q[DY_MAXJ] = {0}, Rf[9], pf[3], pts[3 * MAXPTS], lo[3], hi[3], worst = 0;
  const double* e = m->link_ell + 6*j;
  dy_fk(m, q, j, Rf, pf);
  for (int k = 0; k < 3; k++) { lo[k] = INFINITY; hi[k] = -INFINITY; }
  for (int i = 0; i < np; i++) {
    int cnt = prim_points(prims + i, W[i], Rf, pf, pts);
    for (int t = 0; t < cnt; t++) {
      double s = 0;
      for (int k = 0; k < 3; k++) {
        double d = (pts[3*t+k] - e[k]) / e[3+k];
        s += d*d;
        lo[k] = fmin(lo[k], pts[3*t+k]);
        hi[k] = fmax(hi[k], pts[3*t+k]);
      }
      worst = fmax(worst, s);
    }
  }
  CHECK(worst <= 1 + 1e-9, "%s: link %d: a point of a primitive outside the ellipsoid (%.17g > 1)", what, j + 1, worst);
  for (int k = 0; k < 3; k++) {
    double h = e[3+k] / sqrt(3.0);
    CHECK(fabs(e[k] + h - hi[k]) <= 1e-9 && fabs(e[k] - h - lo[k]) <= 1e-9,
          "%s: link %d axis %d: box [%.17g, %.17g], primitives reach [%.17g, %.17g]", what, j + 1, k, e[k] - h,
          e[k] + h, lo[k], hi[k]);
  }
}

/* ------------------------------------------------------------ 1. tables */

/* writers refuse an invalid ellipsoid on m (link 4 made invalid in turn) */
static void tables_refuse(dyModel* m) {
  char err[DY_ERRSZ];
  m->link_ell[6*3 + 4] = -0.5;
  CHECK(dy_write_model(DIR "/bad.csv", m, m->par, NULL, err, sizeof err) == -1 &&
        strstr(err, "link 4: bounding ellipsoid ry = -0.5 m is not valid"), "table refuses: %s", err);
  CHECK(dy_write_model(DIR "/bad.urdf", m, m->par, NULL, err, sizeof err) == -1 &&
        strstr(err, "link 4: bounding ellipsoid ry = -0.5 m is not valid"), "URDF refuses: %s", err);
  m->link_ell[6*3 + 4] = 0.5;
  m->link_ell[6*3 + 0] = NAN;
  CHECK(dy_write_model(DIR "/bad.csv", m, m->par, NULL, err, sizeof err) == -1 &&
        strstr(err, "link 4: bounding ellipsoid cx = nan m"), "NaN centre refused: %s", err);
}

/* a model with limits (the limit columns), ellipsoids on links 1, 3, 4:
 * none without the columns; written, copied and read back bit for bit, in
 * both parameter forms; a written table is a bounds file */
static void tables_roundtrip(void) {
  char err[DY_ERRSZ];
  static const char* const base_tab =
    "joint,type,alpha,a,theta,d,m,cx,cy,cz,ixx,ixy,ixz,iyy,iyz,izz,qmin,qmax,name\n"
    "1,R,0,0,0,0.3,2,0.01,0.02,0.1,0.02,0,0,0.03,0,0.01,-2,2,a\n"
    "2,R,1.5707963267948966,0.1,0.2,0,1.5,0.2,0,0,0.01,0,0,0.02,0,0.02,,,b\n"
    "3,P,-1.5707963267948966,0,0,0.1,1,0,0.05,0.1,0.01,0,0,0.01,0,0.01,,,c\n"
    "4,R,0.7,0.2,-0.3,0.05,0.5,0,0,0.03,0.002,0,0,0.002,0,0.001,,,d\n";
  write_text(DIR "/base.csv", base_tab);
  dyModel *m = NULL, *b = NULL;
  CHECK(dy_load_model(DIR "/base.csv", NULL, &m, err, sizeof err) == 0, "base table: %s", err);
  if (!m) return;
  for (int k = 0; k < 6*m->n; k++) CHECK(m->link_ell[k] == 0, "a table without ellipsoid columns: none");
  CHECK(dy_write_model(DIR "/plain.csv", m, m->par, NULL, err, sizeof err) == 0, "plain write: %s", err);
  CHECK(!strstr(th_slurp(DIR "/plain.csv"), "ell_"), "no ellipsoid: no ell_ columns");
  const double ell[4][6] = {{0.01, -0.02, 0.15, 0.1, 0.12, 0.3}, {0}, {1.0/3, 0, -2e-5, 0.05, 1e-4, 7.25},
                            {-0.1, 0.2, 0.3, 0.4, 0.5, 0.6}};
  memcpy(m->link_ell, ell, sizeof ell);
  dyModel* c = dy_copy_model(m);
  CHECK(c && !memcmp(c->link_ell, ell, sizeof ell), "dy_copy_model copies link_ell");
  dy_free_model(c);
  CHECK(dy_write_model(DIR "/ell.csv", m, m->par, NULL, err, sizeof err) == 0, "write: %s", err);
  const char* t = th_slurp(DIR "/ell.csv");
  CHECK(strstr(t, "\njoint,type,alpha,a,theta,d,m,cx,cy,cz,ixx,ixy,ixz,iyy,iyz,izz,qmin,qmax,qdmax,qddmax,taumax,"
               "ell_cx,ell_cy,ell_cz,ell_rx,ell_ry,ell_rz,name\n"), "header with the ellipsoid columns:\n%s", t);
  CHECK(strstr(t, ",,,,,,,,,,,,b\n"), "link 2 without: empty cells (limits then ellipsoid):\n%s", t);
  CHECK(dy_load_model(DIR "/ell.csv", NULL, &b, err, sizeof err) == 0, "read back: %s", err);
  if (b) CHECK(!memcmp(b->link_ell, ell, sizeof ell), "table round trip: the same ellipsoids bit for bit");
  double got[6 * 4];
  CHECK(dy_read_ellipsoids(DIR "/ell.csv", m, got, err, sizeof err) == 0 && !memcmp(got, ell, sizeof ell),
        "a written model table is a bounds file: %s", err);
  dy_free_model(b); b = NULL;
  /* standard form too */
  m->par[DY_M] = -1;
  CHECK(dy_write_model(DIR "/std.csv", m, m->par, NULL, err, sizeof err) == 0 &&
        strstr(th_slurp(DIR "/std.csv"), ",mx,my,mz,") &&
        dy_load_model(DIR "/std.csv", NULL, &b, err, sizeof err) == 0 && !memcmp(b->link_ell, ell, sizeof ell),
        "standard form: %s", err);
  dy_free_model(b); b = NULL;
  m->par[DY_M] = 2;
  tables_refuse(m);
  dy_free_model(m);
}

/* a two-joint table's header and rows, the ellipsoid columns to be appended */
static const char* const ell_head = "joint,type,alpha,a,theta,d,m,cx,cy,cz,ixx,ixy,ixz,iyy,iyz,izz";
static const char* const ell_row1 = "1,R,0,0,0,0.3,2,0,0,0.1,0.02,0,0,0.03,0,0.01";
static const char* const ell_row2 = "2,R,1.5707963267948966,0.1,0,0,1,0,0,0,0.01,0,0,0.01,0,0.01";

/* reader errors: each at FILE:ROW:COL */
static void tables_errors(void) {
  static const struct { const char* cols; const char* r1; const char* r2; const char* want; } bad[] = {
    {",ell_cx,ell_cy,ell_cz,ell_rx,ell_ry", ",0,0,0,1,1", ",0,0,0,1,1",
     DIR "/t.csv:1:17: missing column 'ell_rz' in the header (it has the other ellipsoid columns)"},
    {",ell_rz", ",1", ",1", DIR "/t.csv:1:17: missing column 'ell_cx'"},
    {",ell_cx,ell_cy,ell_cz,ell_rx,ell_ry,ell_rz", ",0,0,0,0.1,-0.2,0.3", ",,,,,,",
     DIR "/t.csv:2:21: 'ell_ry' = -0.2 m: a semi-axis must be > 0"},
    {",ell_cx,ell_cy,ell_cz,ell_rx,ell_ry,ell_rz", ",,,,,,", ",0,0,0,0,0,0",
     DIR "/t.csv:3:20: 'ell_rx' = 0 m: a semi-axis must be > 0"},
    {",ell_cx,ell_cy,ell_cz,ell_rx,ell_ry,ell_rz", ",0,0,,0.1,0.1,0.1", ",,,,,,",
     DIR "/t.csv:2:19: 'ell_cz' is empty while other ellipsoid cells of the row are not"},
    {",ell_cx,ell_cy,ell_cz,ell_rx,ell_ry,ell_rz", ",2e6,0,0,0.1,0.1,0.1", ",,,,,,",
     DIR "/t.csv:2:17: 'ell_cx' = 2e+06 m: a length beyond 1e+06 m"},
    {",ell_cx,ell_cy,ell_cz,ell_rx,ell_ry,ell_rz", ",0,0,0,0.1,inf,0.1", ",,,,,,", DIR "/t.csv:2:21: "},
    {",ell_cx,ell_cy,ell_cz,ell_rx,ell_ry,ell_rz", ",0,0,0,0.1,x,0.1", ",,,,,,", DIR "/t.csv:2:21: "},
  };
  char err[DY_ERRSZ];
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char text[1000];
    snprintf(text, sizeof text, "%s%s\n%s%s\n%s%s\n", ell_head, bad[i].cols, ell_row1, bad[i].r1, ell_row2,
             bad[i].r2);
    write_text(DIR "/t.csv", text);
    dyModel* m = (dyModel*)1;
    int r = dy_load_model(DIR "/t.csv", NULL, &m, err, sizeof err);
    CHECK(r == -1 && !m && strstr(err, bad[i].want) == err && !strchr(err, '\n'), "table error %zu: '%s', want '%s'",
          i, err, bad[i].want);
  }
}

/* six empty cells: none; --dh: carried by Tx(a_j) Rx(alpha_j), refused on a general twist */
static void tables_empty_dh(void) {
  char err[DY_ERRSZ], text[1000];
  dyModel* m = NULL;
  snprintf(text, sizeof text, "%s,ell_cx,ell_cy,ell_cz,ell_rx,ell_ry,ell_rz\n%s, , , , , ,\n%s,1,2,3,0.1,0.2,0.3\n",
           ell_head, ell_row1, ell_row2);
  write_text(DIR "/t.csv", text);
  CHECK(dy_load_model(DIR "/t.csv", NULL, &m, err, sizeof err) == 0, "empty cells: %s", err);
  if (m) {
    const double want[12] = {0, 0, 0, 0, 0, 0, 1, 2, 3, 0.1, 0.2, 0.3};
    CHECK(!memcmp(m->link_ell, want, sizeof want), "row 1 none, row 2 as given");
    dy_free_model(m);
  }
  dyLoadOpt o;
  memset(&o, 0, sizeof o);
  o.classic_dh = 1;
  CHECK(dy_load_model(DIR "/t.csv", &o, &m, err, sizeof err) == 0, "--dh: %s", err);
  if (m) {
    /* classic frame 2 -> modified frame 2: x' = Rx(pi/2) x + (0.1, 0, 0) */
    const double want[6] = {1.1, -3, 2, 0.1, 0.3, 0.2};
    for (int k = 0; k < 6; k++) CHECK_REL(m->link_ell[6 + k], want[k], 1e-15, "--dh: link 2 ellipsoid");
    for (int k = 0; k < 6; k++) CHECK(m->link_ell[k] == 0, "--dh: link 1 none");
    dy_free_model(m);
  }
  snprintf(text, sizeof text, "%s,ell_cx,ell_cy,ell_cz,ell_rx,ell_ry,ell_rz\n%s,0,0,0,1,1,1\n%s,,,,,,\n", ell_head,
           "1,R,0.5,0,0,0.3,2,0,0,0.1,0.02,0,0,0.03,0,0.01", ell_row2);
  write_text(DIR "/t.csv", text);
  m = (dyModel*)1;
  CHECK(dy_load_model(DIR "/t.csv", &o, &m, err, sizeof err) == -1 && !m &&
        strstr(err, DIR "/t.csv:2:17: --dh: a bounding ellipsoid of a link whose alpha is not a multiple of pi/2")
          == err, "--dh on a general twist: %s", err);
  CHECK(dy_load_model(DIR "/t.csv", NULL, &m, err, sizeof err) == 0, "the same in modified DH: %s", err);
  dy_free_model(m);
}

/* model tables with bounding ellipsoids: round trip, reader errors, empty cells and --dh */
static void tables(void) {
  tables_roundtrip();
  tables_errors();
  tables_empty_dh();
}

/* ------------------------------------------------------------ 2. URDF */

/* the generated URDF's links and joints (see the top of the file) */
enum { L_BASE, L_PED, L_1, L_TOOL, L_FING, L_2, L_3, L_4, L_FLAP, NLINK };
static const char* const link_name[NLINK] = {"base", "pedestal", "l1", "l1_tool", "fing", "l2", "l3", "l4", "flap"};
/* joint whose child is link i: parent, type; -1: the root */
static const int jparent[NLINK] = {-1, L_BASE, L_BASE, L_1, L_1, L_1, L_2, L_3, L_2};
static const char* const jtype[NLINK] = {"", "fixed", "revolute", "fixed", "prismatic", "revolute", "revolute",
                                         "revolute", "revolute"};
#define LOCK_Q 0.4      /* j_fing [m] */
#define LOCK_FLAP -0.7  /* j_flap [rad] */

typedef struct {
  double xyz[NLINK][3], rpy[NLINK][3], axis[NLINK][3];   /* joint into link i */
  gprim prim[32];
  int np;
} genUrdf;

static void rand_origin(double xyz[3], double rpy[3], double s) {
  for (int k = 0; k < 3; k++) { xyz[k] = th_uniform(-s, s); rpy[k] = th_uniform(-M_PI, M_PI); }
}

static void add_prim(genUrdf* g, int link, int visual, int kind, double s0, double s1, double s2, double far) {
  gprim* p = g->prim + g->np++;
  p->link = link; p->visual = visual; p->kind = kind;
  p->size[0] = s0; p->size[1] = s1; p->size[2] = s2;
  rand_origin(p->xyz, p->rpy, 0.2);
  if (far) { p->xyz[0] = far; p->xyz[1] = -far; }
}

/* random numbers for the fixed layout; world pose of every link at q = 0
 * (the locked joints at LOCK_Q [m] and LOCK_FLAP [rad]) */
static void gen_urdf(genUrdf* g, tpose* Wl) {
  memset(g, 0, sizeof *g);
  for (int i = 1; i < NLINK; i++) {
    rand_origin(g->xyz[i], g->rpy[i], 0.4);
    double a[3] = {th_uniform(-1, 1), th_uniform(-1, 1), th_uniform(-1, 1)}, na = sqrt(dyu_dot3(a, a));
    for (int k = 0; k < 3; k++) g->axis[i][k] = a[k] / na;
  }
  add_prim(g, L_BASE, 0, P_BOX, 1, 1, 1, 3);               /* ground: dropped */
  add_prim(g, L_PED, 1, P_SPHERE, 0.5, 0, 0, 0);
  add_prim(g, L_1, 0, P_BOX, th_uniform(0.02, 0.3), th_uniform(0.02, 0.3), th_uniform(0.02, 0.3), 0);
  add_prim(g, L_1, 0, P_CYL, th_uniform(0.02, 0.1), th_uniform(0.05, 0.4), 0, 0);
  add_prim(g, L_1, 0, P_SPHERE, th_uniform(0.02, 0.15), 0, 0, 0);
  add_prim(g, L_1, 0, P_MESH, 0, 0, 0, 0);
  add_prim(g, L_1, 1, P_BOX, 0.1, 0.1, 0.1, 4);              /* a visual: ignored */
  add_prim(g, L_TOOL, 0, P_CYL, th_uniform(0.02, 0.1), th_uniform(0.05, 0.4), 0, 0);
  add_prim(g, L_FING, 0, P_BOX, th_uniform(0.02, 0.1), th_uniform(0.02, 0.1), th_uniform(0.05, 0.2), 0);
  add_prim(g, L_2, 0, P_MESH, 0, 0, 0, 0);
  add_prim(g, L_2, 1, P_BOX, th_uniform(0.02, 0.3), th_uniform(0.02, 0.3), th_uniform(0.02, 0.3), 0);
  add_prim(g, L_2, 1, P_CYL, th_uniform(0.02, 0.1), th_uniform(0.05, 0.4), 0, 0);
  add_prim(g, L_FLAP, 1, P_SPHERE, th_uniform(0.02, 0.1), 0, 0, 0);
  add_prim(g, L_FLAP, 1, P_BOX, th_uniform(0.02, 0.1), th_uniform(0.02, 0.1), th_uniform(0.05, 0.2), 0);
  add_prim(g, L_3, 0, P_MESH, 0, 0, 0, 0);
  add_prim(g, L_3, 1, P_MESH, 0, 0, 0, 0);
  Wl[L_BASE] = tp_eye();
  for (int i = 1; i < NLINK; i++) {
    Wl[i] = tp_mul(Wl[jparent[i]], tp_origin(g->xyz[i], g->rpy[i]));
    if (i == L_FING) {
      tpose T = tp_eye();
      for (int k = 0; k < 3; k++) T.p[k] = LOCK_Q * g->axis[i][k];
      Wl[i] = tp_mul(Wl[i], T);
    }
    if (i == L_FLAP) Wl[i] = tp_mul(Wl[i], tp_axis(g->axis[i], LOCK_FLAP));
  }
}

static void put_origin(FILE* f, const double xyz[3], const double rpy[3]) {
  fprintf(f, "<origin xyz=\"%.17g %.17g %.17g\" rpy=\"%.17g %.17g %.17g\"/>", xyz[0], xyz[1], xyz[2], rpy[0],
          rpy[1], rpy[2]);
}

static void write_urdf(const char* path, const genUrdf* g) {
  FILE* f = fopen(path, "w");
  if (!f) return;
  fputs("<?xml version=\"1.0\"?>\n<robot name=\"ell\">\n", f);
  for (int i = 0; i < NLINK; i++) {
    fprintf(f, "  <link name=\"%s\">\n", link_name[i]);
    if (i != L_BASE && i != L_PED)
      fputs("    <inertial><mass value=\"1\"/><inertia ixx=\"0.01\" ixy=\"0\" ixz=\"0\" iyy=\"0.01\" iyz=\"0\" "
            "izz=\"0.01\"/></inertial>\n", f);
    for (int k = 0; k < g->np; k++) {
      const gprim* p = g->prim + k;
      if (p->link != i) continue;
      fprintf(f, "    <%s>", p->visual ? "visual" : "collision");
      put_origin(f, p->xyz, p->rpy);
      fputs("<geometry>", f);
      if (p->kind == P_BOX) fprintf(f, "<box size=\"%.17g %.17g %.17g\"/>", p->size[0], p->size[1], p->size[2]);
      else if (p->kind == P_SPHERE) fprintf(f, "<sphere radius=\"%.17g\"/>", p->size[0]);
      else if (p->kind == P_CYL) fprintf(f, "<cylinder radius=\"%.17g\" length=\"%.17g\"/>", p->size[0], p->size[1]);
      else fputs("<mesh filename=\"package://x/y.stl\"/>", f);
      fprintf(f, "</geometry></%s>\n", p->visual ? "visual" : "collision");
    }
    fputs("  </link>\n", f);
  }
  for (int i = 1; i < NLINK; i++) {
    fprintf(f, "  <joint name=\"j_%s\" type=\"%s\">", link_name[i], jtype[i]);
    put_origin(f, g->xyz[i], g->rpy[i]);
    fprintf(f, "<parent link=\"%s\"/><child link=\"%s\"/>", link_name[jparent[i]], link_name[i]);
    if (strcmp(jtype[i], "fixed"))
      fprintf(f, "<axis xyz=\"%.17g %.17g %.17g\"/><limit lower=\"-1\" upper=\"1\" velocity=\"1\" effort=\"1\"/>",
              g->axis[i][0], g->axis[i][1], g->axis[i][2]);
    fputs("</joint>\n", f);
  }
  fputs("</robot>\n", f);
  fclose(f);
}

/* the primitives body j takes (collision of links 1, tool, finger; visual of link 2 and flap) */
static int body_prims(const genUrdf* g, const tpose* Wl, int body, gprim* out, tpose* W) {
  int np = 0;
  for (int k = 0; k < g->np; k++) {
    const gprim* p = g->prim + k;
    int b = p->link == L_1 || p->link == L_TOOL || p->link == L_FING ? 1 : p->link == L_2 || p->link == L_FLAP ? 2 : 0;
    if (b != body || p->kind == P_MESH || p->visual != (body == 2)) continue;
    out[np] = *p;
    W[np++] = tp_mul(Wl[p->link], tp_origin(p->xyz, p->rpy));
  }
  return np;
}

/* variant v's model m written as URDF and as a table and read back: the same
 * DH frames and ellipsoids, no note */
static void check_urdf_written(int v, const dyModel* m) {
  char err[DY_ERRSZ];
  dyModel *u = NULL, *t = NULL;
  CHECK(dy_write_model(DIR "/g_out.urdf", m, m->par, NULL, err, sizeof err) == 0 &&
        dy_load_model(DIR "/g_out.urdf", NULL, &u, err, sizeof err) == 0, "variant %d: URDF round trip: %s", v, err);
  CHECK(dy_write_model(DIR "/g_out.csv", m, m->par, NULL, err, sizeof err) == 0 &&
        dy_load_model(DIR "/g_out.csv", NULL, &t, err, sizeof err) == 0, "variant %d: table round trip: %s", v, err);
  if (u) {
    for (int j = 0; j < 4; j++) {
      double dd = fabs(u->dh_alpha[j] - m->dh_alpha[j]) + fabs(u->dh_a[j] - m->dh_a[j]) +
                  fabs(u->dh_theta[j] - m->dh_theta[j]) + fabs(u->dh_d[j] - m->dh_d[j]);
      CHECK(dd < 1e-9, "variant %d: URDF round trip: the same DH frame %d (%.3g)", v, j + 1, dd);
    }
    for (int k = 0; k < 24; k++)
      CHECK_REL(u->link_ell[k], m->link_ell[k], 1e-12, "URDF round trip: link_ell");
    CHECK(!strstr(u->notes, "ellipsoid"), "variant %d: URDF read back: no note '%s'", v, u->notes);
  }
  if (t) CHECK(!memcmp(t->link_ell, m->link_ell, 24 * sizeof(double)), "variant %d: table round trip exact", v);
  dy_free_model(u); dy_free_model(t);
}

/* random URDF variant v loaded with options o: the ellipsoids of links 1
 * and 2 hold their primitives, links 3 and 4 have none, written and read back */
static void urdf_variant(int v, const dyLoadOpt* o) {
  char err[DY_ERRSZ], what[64];
  genUrdf g;
  tpose Wl[NLINK], W[32];
  gprim bp[32];
  gen_urdf(&g, Wl);
  write_urdf(DIR "/g.urdf", &g);
  dyModel* m = NULL;
  if (dy_load_urdf(DIR "/g.urdf", o, &m, err, sizeof err)) { CHECK(0, "variant %d: %s", v, err); return; }
  CHECK(m->n == 4 && m->load_fk_err < 1e-9, "variant %d: n %d, fk err %.3g", v, m->n, m->load_fk_err);
  /* the ellipsoids are no news: no note (the models' notes are warnings) */
  CHECK(!strstr(m->notes, "ellipsoid") &&
        strstr(m->notes, "locked joint 'j_fing' at 0.4 m") && strstr(m->notes, "locked joint 'j_flap' at -0.7 rad"),
        "variant %d: notes '%s'", v, m->notes);
  for (int j = 1; j <= 2; j++) {
    int np = body_prims(&g, Wl, j, bp, W);
    snprintf(what, sizeof what, "variant %d", v);
    check_body(what, m, j - 1, bp, W, np);
  }
  for (int k = 12; k < 24; k++) CHECK(m->link_ell[k] == 0, "variant %d: links 3, 4 none", v);
  check_urdf_written(v, m);
  dy_free_model(m);
}

/* malformed primitives refused in one line; another shape ignored */
static void urdf_bad_prims(void) {
  static const struct { const char* geo; const char* want; } bad[] = {
    {"<box size=\"0.1 -0.2 0.1\"/>", ":3: link 'l1': <box size>: negative size -0.2"},
    {"<box/>", ":3: link 'l1': <box> without size"},
    {"<cylinder radius=\"0.1\"/>", ":3: link 'l1': <cylinder> without length"},
    {"<sphere radius=\"a\"/>", ":3: <sphere radius=\"a\">: 'a' is not a number"},
    {"<box size=\"0.1 0.1 1.2e6\"/>", ":2: link 'l1' (link 1): the bounding ellipsoid of its collision primitives "
     "has a semi-axis 1.03923e+06 m, beyond 1e+06 m"},
    {"<capsule radius=\"0.1\" length=\"0.2\"/>", NULL},
  };
  char err[DY_ERRSZ];
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    FILE* f = fopen(DIR "/b.urdf", "w");
    fprintf(f, "<robot name=\"b\"><link name=\"b\"/>\n<link name=\"l1\"><collision><geometry>\n%s\n</geometry>"
            "</collision></link>\n<joint name=\"j\" type=\"continuous\"><parent link=\"b\"/><child link=\"l1\"/>"
            "</joint></robot>\n", bad[i].geo);
    fclose(f);
    dyModel* m = (dyModel*)1;
    int r = dy_load_urdf(DIR "/b.urdf", NULL, &m, err, sizeof err);
    if (bad[i].want)
      CHECK(r == -1 && !m && strstr(err, DIR "/b.urdf") == err && strstr(err, bad[i].want),
            "bad primitive %zu: '%s', want '%s'", i, err, bad[i].want);
    else {
      CHECK(r == 0 && m && m->link_ell[3] == 0 && !m->notes[0], "other shape: %s", r ? err : m->notes);
      dy_free_model(m);
    }
  }
}

/* 12 random URDF variants (tip l4, the finger and flap locked), then malformed primitives */
static void urdf_derived(void) {
  const char* lock_joint[2] = {"j_fing", "j_flap"};
  double lock_q[2] = {LOCK_Q, LOCK_FLAP};
  dyLoadOpt o;
  memset(&o, 0, sizeof o);
  o.tip = "l4"; o.nlock = 2; o.lock_joint = lock_joint; o.lock_q = lock_q;
  for (int v = 0; v < 12; v++) urdf_variant(v, &o);
  urdf_bad_prims();
}

/* ------------------------------------------------------------ 3. shipped */

static void shipped(void) {
  char err[DY_ERRSZ];
  dyModel* m = NULL;
  const char* kuka = "datasets/urdf/kuka_lwr4.urdf";
  CHECK(dy_load_urdf(kuka, NULL, &m, err, sizeof err) == 0 && m->n == 7, "kuka: %s", err);
  if (m) {
    CHECK(!m->notes[0], "kuka: no note '%s'", m->notes);
    for (int j = 0; j < 7; j++)
      CHECK(dy_ell_given(m->link_ell + 6*j) == (j != 5) && dy_ell_bad(m->link_ell + 6*j) < 0, "kuka: link %d", j + 1);
    /* the file's numbers: box -> lwr_base_link at (-0.25, 0, 1), joint
     * origins along z, all rpy 0 (links world-aligned at q = 0) */
    const double z1 = 1 + 0.11, z7 = z1 + 0.2005 + 0.2 + 0.2 + 0.2 + 0.19 + 0.078;
    tpose W[3];
    gprim p[3] = {
      {0, 0, P_SPHERE, {0.07, 0, 0}, {0, 0, 0}, {0, 0, 0}},
      {0, 0, P_SPHERE, {0.07, 0, 0}, {0, 0.06, 0.2}, {0, 0, 0}},
      {0, 0, P_CYL, {0.07, 0.208, 0}, {0, 0.03, 0.1}, {-0.291, 0, 0}}};
    for (int i = 0; i < 3; i++) {
      double xyz[3] = {p[i].xyz[0] - 0.25, p[i].xyz[1], p[i].xyz[2] + z1};
      W[i] = tp_origin(xyz, p[i].rpy);
    }
    check_body("kuka", m, 0, p, W, 3);
    gprim p7 = {0, 0, P_CYL, {0.04, 0.05, 0}, {-0.25, 0, z7}, {0, 0, 3.14159265359}};
    W[0] = tp_origin(p7.xyz, p7.rpy);
    check_body("kuka", m, 6, &p7, W, 1);
    dy_free_model(m);
  }
  m = NULL;
  CHECK(dy_load_urdf("datasets/urdf/gen3.urdf", NULL, &m, err, sizeof err) == 0, "gen3: %s", err);
  if (m) {
    for (int k = 0; k < 6*m->n; k++) CHECK(m->link_ell[k] == 0, "gen3: no geometry, no ellipsoid");
    CHECK(!strstr(m->notes, "bounding ellipsoids"), "gen3: no ellipsoid note: '%s'", m->notes);
    dy_free_model(m);
  }
}

/* ------------------------------------------------------------ 4. bounds files */

static void bounds_files(void) {
  char err[DY_ERRSZ];
  dyModel* m = dy_make_model(3);
  snprintf(m->source, sizeof m->source, "three");
  double ell[18], want[18] = {0};
  write_text(DIR "/e.csv",
             "# bounds\nELL_RZ, note, ell_ry,ell_rx , Joint,ell_cz,ell_cy,ell_cx\n"
             "0.3,x,0.2,0.1,3,-1,2e-3,1.5\n"
             ",y,,,2,,,\n"
             "3e-2,z,2,1,1,0,0,0\n");
  const double r3[6] = {1.5, 2e-3, -1, 0.1, 0.2, 0.3}, r1[6] = {0, 0, 0, 1, 2, 3e-2};
  memcpy(want + 12, r3, sizeof r3);
  memcpy(want, r1, sizeof r1);
  for (int k = 0; k < 18; k++) ell[k] = 99;
  CHECK(dy_read_ellipsoids(DIR "/e.csv", m, ell, err, sizeof err) == 0 && !memcmp(ell, want, sizeof want),
        "bounds file: %s", err);
  write_text(DIR "/e.csv", "joint;ell_cx;ell_cy;ell_cz;ell_rx;ell_ry;ell_rz\n2;0;0;0;1;1;1\n");
  CHECK(dy_read_ellipsoids(DIR "/e.csv", m, ell, err, sizeof err) == 0 && ell[0] == 0 && ell[9] == 1 && ell[17] == 0,
        "semicolons, joints 1 and 3 not listed: %s", err);

  struct { const char* text; const char* want; } bad[] = {
    {"joint,ell_cx,ell_cy,ell_cz,ell_rx,ell_ry,ell_rz\n1,0,0,0,1,1,1\n4,0,0,0,1,1,1\n",
     ":3:1: joint 4 is not a joint of the model, which has 3 (1..3)"},
    {"joint,ell_cx,ell_cy,ell_cz,ell_rx,ell_ry,ell_rz\n0,0,0,0,1,1,1\n", ":2:1: joint 0 is not a joint of the model"},
    {"joint,ell_cx,ell_cy,ell_cz,ell_rx,ell_ry,ell_rz\n1.5,0,0,0,1,1,1\n", ":2:1: joint 1.5 is not a joint"},
    {"x,joint,ell_cx,ell_cy,ell_cz,ell_rx,ell_ry,ell_rz\n,2,0,0,0,1,1,1\n\n# c\n,2,0,0,0,1,1,1\n",
     ":5:2: joint 2 given twice (also on line 2)"},
    {"joint,ell_cx,ell_cy,ell_cz,ell_rx,ell_ry\n1,0,0,0,1,1\n", ":1:2: missing column 'ell_rz' in the header"},
    {"ell_cx,ell_cy,ell_cz,ell_rx,ell_ry,ell_rz\n0,0,0,1,1,1\n", ":1:1: missing column 'joint' in the header"},
    {"joint,a\n1,2\n", ":1:1: missing column 'ell_cx' in the header: the bounding ellipsoid takes all six"},
    {"joint,ell_cx,ell_cy,ell_cz,ell_rx,ell_ry,ell_rz\n1,0,0,0,1,one,1\n", ":2:6: "},
    {"joint,ell_cx,ell_cy,ell_cz,ell_rx,ell_ry,ell_rz\nx,0,0,0,1,1,1\n", ":2:1: "},
    {"joint,ell_cx,ell_cy,ell_cz,ell_rx,ell_ry,ell_rz\n1,0,0,0,1,1,0\n",
     ":2:7: 'ell_rz' = 0 m: a semi-axis must be > 0"},
    {"joint,ell_cx,ell_cy,ell_cz,ell_rx,ell_ry,ell_rz\n1,0,0,0,-1,1,1\n",
     ":2:5: 'ell_rx' = -1 m: a semi-axis must be > 0"},
    {"joint,ell_cx,ell_cy,ell_cz,ell_rx,ell_ry,ell_rz\n1,0,,0,1,1,1\n", ":2:3: 'ell_cy' is empty while"},
    {"joint,ell_cx,ell_cy,ell_cz,ell_rx,ell_ry,ell_rz\n1,0,0,0,1,1\n", ":2:7: row has 6 columns, the header has more"},
    {"joint,ell_cx,ell_cy,ell_cz,ell_rx,ell_ry,ell_rz\n1,0,0,0,1,1,1\n2,0,0,0,1,1,1\n3,0,0,0,1,1,1\n4,0,0,0,1,1,1\n",
     ":5:1: joint 4 is not a joint of the model, which has 3"},
    {"", ": empty file, expected the header"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    write_text(DIR "/e.csv", bad[i].text);
    for (int k = 0; k < 18; k++) ell[k] = 99;
    int r = dy_read_ellipsoids(DIR "/e.csv", m, ell, err, sizeof err);
    int untouched = 1;
    for (int k = 0; k < 18; k++) untouched &= ell[k] == 99;
    CHECK(r == -1 && untouched && strstr(err, DIR "/e.csv") == err &&
          strstr(err, bad[i].want) == err + strlen(DIR "/e.csv") && !strchr(err, '\n'),
          "bounds error %zu: '%s', want '%s'", i, err, bad[i].want);
  }
  CHECK(dy_read_ellipsoids(DIR "/absent.csv", m, ell, err, sizeof err) == -1 && strstr(err, DIR "/absent.csv"),
        "absent file: %s", err);
  dy_free_model(m);
}

int main(void) {
  mkdir("build", 0777);
  mkdir("build/tests", 0777);
  mkdir(DIR, 0777);
  tables();
  urdf_derived();
  shipped();
  bounds_files();
  return test_report();
}
