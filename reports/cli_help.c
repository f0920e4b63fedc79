/* SPDX-License-Identifier: MIT */
/* dynid program: what each command and option means, in one table that
 * gives `dynid --help`, `dynid CMD --help`, the manual page (`dynid --man`,
 * kept as reports/dynid.1 and compared by tests/test_cli.c) and the
 * "did you mean" suggestions for mistyped commands and options. An option a
 * command accepts (its cli_check list) but this table does not describe is
 * shown as "(not documented)" in its help, which the tests refuse. */
#include "reports/cli.h"
#include "reports/version.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char* name;   /* without "--" ("o" for -o) */
  const char* arg;    /* value placeholder, NULL for a flag */
  const char* unit;   /* NULL: none */
  const char* def;    /* NULL: none / off */
  const char* what;
} helpOpt;

typedef struct {
  const char* name;
  const char* synopsis;     /* after "dynid " */
  const char* summary;      /* one line for the command list */
  const char* args;         /* "NAME\tmeaning\n" lines */
  int model, log;           /* the model options / the log options apply */
  helpOpt opts[28];
  const char* example;
} helpCmd;

static const helpOpt model_opts[] = {
  {"o", "FILE", NULL, "standard output", "write the result to FILE (appears only when complete; '-' is standard output)"},
  {"dh", NULL, NULL, NULL, "the model table is in classic DH (Saha, Paul): converted to modified DH"},
  {"gravity", "gx,gy,gz", "m/s^2", "the model's (0,0,-9.81)", "gravity in frame 0 (URDF: in its root)"},
  {"base", "LINK", NULL, "the URDF root", "URDF: the link the chain starts from"},
  {"tip", "LINK", NULL, "the end of the chain", "URDF: the link the chain ends at"},
  {"lock", "JOINT=VALUE", "rad|m", "0", "URDF: hold a moving joint off the chain at VALUE (repeatable)"},
  {"snap", "RAD", "rad", "1e-4", "URDF: joint-origin angles this close to a multiple of pi/2 become it (0: off)"},
  {"quiet", NULL, NULL, "off", "no summary, progress or warnings on standard error (errors still; with --strict the "
   "log is still checked)"},
  {NULL, NULL, NULL, NULL, NULL}};

static const helpOpt log_opts[] = {
  {"map", "NAME=COLUMN", NULL, "columns named t, q1..qn, qd1..qdn, qdd1..qddn, tau1..taun (a unit beside the name, q1 [deg], is converted)", "read quantity NAME from column COLUMN (repeatable; ranges q1..q7=c2..c8 or =joint1_pos..joint7_pos)"},
  {"no-header", NULL, NULL, NULL, "the log has no header: columns are c1, c2, ... by position"},
  {"gain", "K1,...,Kn|PARAMS", "N m/column unit", "1; validate, report, payload: their PARAMS's GAIN rows",
   "torque = gain x column (motor current to joint torque; per motor with --transmission); PARAMS: the GAIN rows of a PARAMS file (identify "
   "--estimate-gains)"},
  {"transmission", "FILE|urdf", NULL, "none (the model's, if it carries one)", "the log's q and tau columns are the motors': FILE holds R, n rows of n numbers, row k for motor k, motor velocity = R x joint velocity (q = R^-1 q_m, tau = R^T tau_m after --gain); urdf: the URDF's <transmission> elements. With --friction a motor turning several joints adds IAMk FVMk FCMk"},
  {"q-offset", "O1,...,On", "rad|m", "0", "joint position = mapped position + offset (encoder zeros that are not the model's)"},
  {"time-scale", "K", "s/column unit", "1", "t = K x time column (0.001 for milliseconds or a 1 kHz sample index)"},
  {"rows", "A..B", "data rows", "all", "use data rows A to B (1-based after the header; A.. or ..B open; several logs: A..B,C..D per log)"},
  {"cutoff", "HZ|none", "Hz", "measured on the log: the highest where each joint's differentiated noise stays within 1 % rms of its motion, at least min(fs/20, 10 Hz), at most fs/5", "low-pass cutoff of the logged signals; none: no filtering"},
  {"filter-order", "N", NULL, "4", "Butterworth order of the low-pass"},
  {"derive", "qd|qdd", NULL, "use the logged columns", "ignore logged derivatives: qdd from qd, or qd and qdd from q"},
  {"decimate", "D", "samples", "fs / (2.5 fc)", "decimation of the identification rows (with --no-parallel: keep every D-th sample)"},
  {"no-parallel", NULL, NULL, NULL, "filter the torque with q and not the regressor columns (the older pipeline)"},
  {"resample", "HZ", "Hz", "off", "interpolate onto a uniform time grid first"},
  {"qd-min", "V", "rad/s|m/s", "0 (off)", "leave out equations of joints slower than V (Coulomb friction)"},
  {"drop-stale", NULL, NULL, NULL, "drop rows repeating the previous row's q, qd, tau with a new time stamp"},
  {"strict", NULL, NULL, "off", "warnings about the log (units, rate, model mismatch, data quality) are errors: "
   "exit 1, nothing written"},
  {"on-bad", "drop|stop", NULL, "stop", "bad rows (NaN, corrupt cell, time backwards) stop the read or are dropped"},
  {NULL, NULL, NULL, NULL, NULL}};

/* options several commands share */
#define OPT_PARAMS {"params", "P", NULL, "the model's own parameters", "use PARAMS file P (from identify): the standard parameters it carries (#! pi lines), else a realisation of its base parameters"}
#define OPT_FORCE {"force", NULL, NULL, NULL, "use P even if it was identified on another model"}
#define OPT_END {NULL, NULL, NULL, NULL, NULL}

#define PANDA "datasets/models/panda.csv"
#define KUKA "datasets/urdf/kuka_lwr4.urdf"
#define KLOG "datasets/kuka_lwr4/measurements_"

static const helpCmd docs[] = {
  {"model", "model MODEL [model options]", "print the model as a modified-DH table (reads back)",
   "MODEL\ta model table (.csv, .csv.gz) or a URDF (.urdf)\n", 1, 0,
   {{"o", "FILE.csv|FILE.urdf", NULL, "standard output (a table)", "write the model as a table or as a URDF"},
    {"transmission", "FILE|urdf", NULL, "none", "give the model a transmission (written as #! transmission)"},
    OPT_END},
   "dynid model " KUKA},
  {"id", "id MODEL STATES [--params P] [--algo A] [-o FILE]", "inverse dynamics: tau1..taun per row",
   "MODEL\tthe arm\nSTATES\tCSV with q1..qn, qd1..qdn, qdd1..qddn [rad, rad/s, rad/s^2]\n", 1, 0,
   {OPT_PARAMS,
    {"algo", "rnea|ne-base|renaud|saha|lin91", NULL, "rnea", "algorithm (all give the same torques)"},
    OPT_FORCE,
    OPT_END},
   "dynid id " KUKA " " KLOG "1.csv.gz"},
  {"inertia", "inertia MODEL STATES [--params P] [--algo A] [-o FILE]", "the joint-space inertia matrix per row",
   "MODEL\tthe arm\nSTATES\tCSV with q1..qn [rad|m]\n", 1, 0,
   {OPT_PARAMS,
    {"algo", "crba|lin1|lin2|lin3|lin4|lin5|lin91|saha", NULL, "crba", "algorithm (all give the same matrix)"},
    OPT_FORCE,
    OPT_END},
   "dynid inertia " KUKA " " KLOG "1.csv.gz --params kuka.params.csv"},
  {"fd", "fd MODEL LOG [--params P] [--algo A] [-o FILE]", "forward dynamics: qdd1..qddn per row from q, qd, tau",
   "MODEL\tthe arm\nLOG\tCSV with q1..qn, qd1..qdn, tau1..taun [rad, rad/s, N m]\n", 1, 0,
   {OPT_PARAMS,
    {"algo", "chol|aba|saha", NULL, "chol", "algorithm: CRBA and Cholesky, articulated body, or DeNOC"},
    OPT_FORCE,
    OPT_END},
   "dynid fd " KUKA " " KLOG "1.csv.gz --algo aba"},
  {"regressor", "regressor MODEL STATES [--friction] [-o FILE]", "the regressor rows (one per sample and joint)",
   "MODEL\tthe arm\nSTATES\tCSV with q1..qn, qd1..qdn, qdd1..qddn\n", 1, 0,
   {{"friction", NULL, NULL, NULL, "add the joint parameters IA FV FC FO"}, {"transmission", "FILE|urdf", NULL, "none", "the motors' transmission (see identify): with --friction a motor turning several joints adds IAMk FVMk FCMk"}, {NULL, NULL, NULL, NULL, NULL}},
   "dynid regressor " KUKA " " KLOG "1.csv.gz --friction"},
  {"base", "base MODEL [--set qr|khalil|lin] [--friction[=LIST]] [-o FILE]",
   "the base parameters (name,expression) and why each standard one is identifiable or not",
   "MODEL\tthe arm\n", 1, 0,
   {{"set", "khalil|lin|qr", NULL, "khalil", "base-parameter set: Khalil-Mayeda rules, Lin's combinations, or numerical QR"},
    {"friction", "[=ia,fv,fc,fo]", NULL, "off", "add joint parameters (rotor inertia, viscous, Coulomb, offset): all, or those listed"},
    {"fix", "NAME=VALUE", "SI", "none", "the set with standard parameter NAME held at VALUE, as identify --fix makes it; repeatable"},
    {"drop", "NAME", NULL, "none", "the same as --fix NAME=0; repeatable"},
    {"transmission", "FILE|urdf", NULL, "none", "the motors' transmission (see identify): with --friction a motor turning several joints adds IAMk FVMk FCMk"},
    OPT_END},
   "dynid base " KUKA " --friction"},
  {"excite", "excite MODEL [options] -o TRAJ", "an exciting trajectory (t,q,qd,qdd) within the joint limits",
   "MODEL\tthe arm (its joint limits bound the motion)\n", 1, 0,
   {{"harmonics", "L", NULL, "5", "harmonics of the Fourier series"},
    {"period", "S", "s", "10", "fundamental period"},
    {"duration", "S", "s", "the period", "length of the trajectory written"},
    {"rate", "HZ", "Hz", "500", "sample rate of the trajectory written"},
    {"criterion", "cond|dopt|cond-scaled", NULL, "cond", "minimise the condition number (of the column-scaled regressor with cond-scaled), or maximise log det (D-optimal)"},
    {"set", "khalil|lin|qr", NULL, "khalil", "base-parameter set the criterion is computed for"},
    {"friction", NULL, NULL, "off", "include the joint parameters in the criterion"},
    {"transmission", "FILE|urdf", NULL, "none", "the motors' transmission (see identify): with --friction a motor turning several joints adds IAMk FVMk FCMk"},
    {"rest", NULL, NULL, "off", "start and end at rest (qd = qdd = 0)"},
    {"seed", "N", NULL, "1", "the random starts of the search (the same seed gives the same trajectory)"},
    {"samples", "K", NULL, "100", "samples per period in the criterion"},
    {"screen", "N", NULL, "48", "starting trajectories screened by a short smooth search; the best --starts go on (<= --starts: none)"},
    {"starts", "N", NULL, "8", "local searches from different starting trajectories"},
    {"maxeval", "N", NULL, "300", "evaluations per local search at most"},
    {"hops", "N", NULL, "10", "local searches per hop round, each from a random perturbation of the best trajectory so far (0: none)"},
    {"hop-rounds", "N", NULL, "3", "hop rounds; a round's best replaces the best trajectory when lower"},
    {"hop-eval", "N", NULL, "200", "evaluations per hop search at most"},
    {"polish", "N", NULL, "500", "evaluations of the final polish of the best trajectory"},
    {"maxtime", "S", "s", "none", "optional cap on the whole search's time (with it the result depends on the machine's speed)"},
    {"threads", "N", NULL, "the machine's cores", "threads running the starts"},
    {"noise", "S1,..,Sn", "N m|N", "1 % of each joint's gravity-torque RMS", "torque noise per joint: weights the criterion and gives the expected std printed"},
    {"margin", "F", "fraction", "0.9", "fraction of each limit the trajectory may use, in (0, 1]"},
    {"qdmax", "V|V1,..,Vn", "rad/s|m/s", "the model's", "velocity limits (one for all joints or one per joint)"},
    {"qddmax", "A|A1,..,An", "rad/s^2|m/s^2", "the model's", "acceleration limits (one or one per joint)"},
    {"o", "TRAJ", NULL, "required", "the trajectory file (t, q, qd, qdd)"},
    OPT_END},
   "dynid excite " KUKA " --friction --rest -o traj.csv"},
  {"simulate", "simulate MODEL TRAJ|fourier [options] -o LOG", "a log of the model's torques along a trajectory, with noise",
   "MODEL\tthe arm\nTRAJ\ta trajectory (t, q, qd, qdd columns, e.g. from excite), or 'fourier' for a random one\n", 1, 0,
   {{"noise", "S|S1,..,Sn", "N m|N", "0", "Gaussian noise on the torque (one std for all joints or one per joint)"},
    {"seed", "N", NULL, "1", "random seed (the same seed gives the same file)"},
    {"friction", NULL, NULL, "off", "add the model's joint terms IA qdd + FV qd + FC sign(qd) + FO (and the coupled motors')"},
    {"transmission", "FILE|urdf", NULL, "none (the model's, if it carries one)", "write the log motor side: q_m = R q, tau_m = R^-T tau"},
    {"duration", "S", "s", "10", "fourier: length"},
    {"rate", "HZ", "Hz", "1000", "fourier: sample rate"},
    {"harmonics", "L", NULL, "5", "fourier: harmonics"},
    {"period", "S", "s", "min(duration, 10)", "fourier: fundamental period"},
    {"o", "LOG", NULL, "standard output", "the log written (t, q, qd, qdd, tau)"},
    OPT_END},
   "dynid simulate " PANDA " fourier --duration 5 --noise 0.1 -o sim.csv"},
  {"identify", "identify MODEL LOG [LOG...] [options] -o PARAMS",
   "identify the base parameters (value and std) from one or more logs",
   "MODEL\tthe arm\nLOG\tCSV with t, q1..qn, [qd1..qdn, qdd1..qddn,] tau1..taun [s, rad, N m]; several logs are stacked\n", 1, 1,
   {{"o", "PARAMS", NULL, "standard output", "the PARAMS file (name,value,std,rel_std_pct,expression)"},
    {"set", "khalil|lin|qr", NULL, "khalil", "base-parameter set"},
    {"method", "ols|wls|irls", NULL, "ols", "least squares, weighted per joint, or robust (Huber)"},
    {"friction", "[=ia,fv,fc,fo]", NULL, "off", "identify joint parameters too (all, or those listed)"},
    {"fix", "NAME=VALUE", "SI", "none", "hold standard parameter NAME (XXj..Mj, IAj FVj FCj FOj of joint j) at VALUE instead of estimating it: its torque leaves the measured torque, it leaves every base parameter; repeatable"},
    {"drop", "NAME", NULL, "none", "the same as --fix NAME=0 (e.g. --drop FO1 where joint 1 turns one way only, so sign(qd1) cannot be told from the offset); repeatable"},
    {"consistent", NULL, NULL, "off", "a physically consistent and plausible estimate (semidefinite program, certified)"},
    {"bounds", "auto|none|FILE", NULL, "auto", "--consistent: each link's mass in an ellipsoid (the model's, from URDF collision or visual primitives, else from its kinematics; FILE: joint,ell_cx,..,ell_rz) and within R_j of its frame, at least 4 mm thick; none: consistency alone"},
    {"mass-range", "LO,HI|none", NULL, "0.5,2", "--consistent: each link's mass within LO..HI times the nominal"},
    {"total-mass", "KG", "kg", "none", "--consistent: the links' masses add up to KG (within 1 %)"},
    {"boot", "N", "re-solves", "20", "--consistent: the std by a parametric bootstrap of N re-solves (0: none)"},
    {"prior", "nominal|none|MODELFILE", NULL, "nominal", "--consistent: the prior among consistent solutions"},
    {"prior-weight", "W", NULL, "by cross-validation (0.1..100, wider when the best is at an end)", "--consistent: weight of the prior"},
    {"min-eig", "E", "kg m^2, kg", "0", "--consistent: margin on each link's pseudo-inertia"},
    {"model-out", "FILE.csv|FILE.urdf", NULL, "none", "also write the identified arm as a model file (a transmission: #! lines in a table, ros_control <transmission> elements in a URDF, read back with --transmission urdf)"},
    {"block", "SAMPLES", "samples", "256", "samples per block of the streaming QR"},
    {"threads", "N", NULL, "the machine's cores", "the reader and N - 1 workers computing and folding the rows; with N > 1 the CSV is parsed ahead on threads of its own, a plain file by byte ranges on two (same estimate as one)"},
    {"save-stats", "FILE", NULL, "none", "write the statistics the estimate needs (merge them with --stats)"},
    {"stats", "FILE...|DIR|@LIST", NULL, "none", "estimate from merged statistics files instead of logs"},
    {"estimate-gains", NULL, NULL, "off", "drive gains (rows GAIN1..GAINn, N m per logged unit) with the base "
     "parameters, from LOG (no load) and --payload-log, by output error (unbiased); a gain with a relative std "
     "above 5 % stays at --gain"},
    {"payload-log", "LOADED", NULL, "none", "--estimate-gains: a log recorded with the load on (repeatable)"},
    {"payload-mass", "KG", "kg", "none", "--estimate-gains: the load's known mass (> 0)"},
    OPT_END},
   "dynid identify " KUKA " " KLOG "1.csv.gz --map t=t_s --friction -o kuka.params.csv"},
  {"validate", "validate MODEL PARAMS LOG [options] [-o METRICS]",
   "the identified model against a log it has not seen: joint,rms,rel_err_pct,r2",
   "MODEL\tthe arm the parameters were identified on\nPARAMS\ta PARAMS file from identify\nLOG\tthe held-out log\n", 1, 1,
   {{"o", "METRICS", NULL, "standard output", "the metrics CSV"},
    {"folds", "K", NULL, "off", "K-fold cross-validation by time blocks (2..)"},
    {"horizon", "S", "s", "off", "forward simulation driven by the measured torque (a linearly implicit Rosenbrock integrator, stable where a consistent estimate makes the equations stiff), restarted every S"},
    {"threads", "N", NULL, "the machine's cores", "with N > 1 the CSV is parsed ahead on threads of its own, a plain file by byte ranges on two (same output)"},
    {"force", NULL, NULL, NULL, "use PARAMS even if it was identified on another model"},
    OPT_END},
   "dynid validate " KUKA " kuka.params.csv " KLOG "2.csv.gz --map t=t_s"},
  {"report", "report MODEL PARAMS LOG... [options] -o REPORT.html",
   "a self-contained HTML report: parameters, held-out errors, consistency, plots",
   "MODEL\tthe arm\nPARAMS\ta PARAMS file from identify\nLOG\tone or more held-out logs\n", 1, 1,
   {{"o", "REPORT.html", NULL, "required", "the report"},
    {"compare", "PARAMS2", NULL, "none", "a second parameter set shown beside PARAMS (e.g. identify --consistent)"},
    {"labels", "A,B", NULL, "from the headers", "names of the two sets"},
    {"models", "FILES[,FILES]", NULL, "none", "per set the model files written by identify --model-out ('+' joins several)"},
    {"title", "TEXT", NULL, "the model's name", "title of the page"},
    {"horizon", "S", "s", "0.05", "forward-simulation horizon"},
    {"payload", "FILE", NULL, "none", "a load identified by dynid payload (its CSV), shown beside the drive gains"},
    {"force", NULL, NULL, NULL, "use PARAMS even if it was identified on another model"},
    OPT_END},
   "dynid report " KUKA " kuka.params.csv " KLOG "2.csv.gz --map t=t_s -o kuka.html"},
  {"payload", "payload MODEL ARM_PARAMS LOG [--mass KG] [options] [-o PAYLOAD.csv|PAYLOAD.urdf]",
   "the mass, centre of mass and inertia of a load fixed to the tip frame, from a log recorded with it",
   "MODEL\tthe arm; the load is fixed to its tip frame (URDF --tip link, table '#! tip' line)\n"
   "ARM_PARAMS\tthe arm without the load: a PARAMS file from identify (with its friction)\n"
   "LOG\ta log recorded with the load on\n", 1, 1,
   {{"o", "PAYLOAD.csv|PAYLOAD.urdf", NULL, "standard output (CSV)",
     "name,value,std rows m, cx, cy, cz (tip frame), ixx..izz (about the centre of mass); .urdf: a link and a fixed joint to paste"},
    {"mass", "KG", "kg", "estimated", "fix the mass and estimate the other 9 parameters"},
    {"consistent", NULL, NULL, "off", "a plausible load: mass > 0, inertia about the centre of mass positive definite "
     "with the triangle inequalities, the mass inside a sphere of --radius about the tip origin (semidefinite "
     "program, certified; no std)"},
    {"radius", "M", "m", "0.3", "--consistent: radius of the bounding sphere about the tip origin"},
    {"force", NULL, NULL, NULL, "use ARM_PARAMS even if it was identified on another model"},
    OPT_END},
   "dynid payload " PANDA " arm.params.csv loaded.csv -o payload.csv"},
  {"bench", "bench [MODEL] [--params P] [--time S] [--ops] [-o FILE]",
   "timings of the core algorithms, or their executed operation counts",
   "MODEL\tthe arm (default a built-in 6R)\n", 1, 0,
   {{"params", "P", NULL, "the model's own parameters", "time the realisation of PARAMS file P"},
    {"time", "S", "s", "0.1", "measuring time per algorithm"},
    {"ops", NULL, NULL, "off", "print executed multiplications and additions instead of timings"},
    {"o", "FILE", NULL, "standard output", "write the result to FILE"},
    OPT_END},
   "dynid bench " PANDA " --ops"},
};
#define NDOC ((int)(sizeof docs / sizeof docs[0]))

static const helpCmd* find_doc(const char* cmd) {
  for (int i = 0; i < NDOC; i++)
    if (!strcmp(docs[i].name, cmd)) return &docs[i];
  return NULL;
}

/* ------------------------------------------------------------ suggestions */

/* optimal string alignment distance (adjacent swaps count 1) */
static int distance(const char* a, const char* b) {
  int la = (int)strlen(a), lb = (int)strlen(b);
  if (la > 63 || lb > 63) return 99;
  int d[64][64];
  for (int i = 0; i <= la; i++) d[i][0] = i;
  for (int j = 0; j <= lb; j++) d[0][j] = j;
  for (int i = 1; i <= la; i++)
    for (int j = 1; j <= lb; j++) {
      int c = a[i-1] != b[j-1];
      int v = d[i-1][j] + 1;
      if (d[i][j-1] + 1 < v) v = d[i][j-1] + 1;
      if (d[i-1][j-1] + c < v) v = d[i-1][j-1] + c;
      if (i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] && d[i-2][j-2] + 1 < v) v = d[i-2][j-2] + 1;
      d[i][j] = v;
    }
  return d[la][lb];
}

/* the closest of the comma-separated names in list: a unique prefix
 * ("--cut" -> cutoff) or within an edit distance of about a third of the
 * word; NULL if none is close. The result is a static copy. */
const char* cli_suggest(const char* word, const char* list) {
  static char best[64];
  int bd = 99, nprefix = 0;
  char pre[64] = "";
  size_t wl = strlen(word);
  for (const char* s = list; s && *s;) {
    const char* e = strchr(s, ',');
    size_t L = e ? (size_t)(e - s) : strlen(s);
    char cand[64];
    if (L && L < sizeof cand) {
      memcpy(cand, s, L);
      cand[L] = 0;
      if (wl >= 2 && L > wl && !strncmp(cand, word, wl)) { nprefix++; snprintf(pre, sizeof pre, "%s", cand); }
      int d = distance(word, cand);
      if (d < bd) { bd = d; snprintf(best, sizeof best, "%s", cand); }
    }
    s = e ? e + 1 : NULL;
  }
  if (nprefix == 1) { snprintf(best, sizeof best, "%s", pre); return best; }
  int tol = wl <= 3 ? 1 : wl <= 8 ? 2 : 3;
  return bd <= tol ? best : NULL;
}

/* every command name, comma-separated */
const char* cli_command_names(void) {
  static char buf[256];
  if (!buf[0])
    for (int i = 0; i < NDOC; i++)
      snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", i ? "," : "", docs[i].name);
  return buf;
}

/* every option a command documents (its own, the model and log ones), comma-separated */
const char* cli_doc_options(const char* cmd) {
  static char buf[1024];
  buf[0] = 0;
  const helpCmd* d = find_doc(cmd);
  if (!d) return buf;
  const helpOpt* lists[3] = {d->opts, d->model ? model_opts : NULL, d->log ? log_opts : NULL};
  for (int l = 0; l < 3; l++)
    for (const helpOpt* o = lists[l]; o && o->name; o++)
      snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", buf[0] ? "," : "", o->name);
  return buf;
}

/* ------------------------------------------------------------ help text */

/* text wrapped at width, continuation lines indented; the cursor is at col */
static void print_wrapped(FILE* f, const char* text, int indent, int col, int width) {
  int fresh = 1;
  for (const char* s = text; *s;) {
    while (*s == ' ') s++;
    if (!*s) break;
    const char* e = s;
    while (*e && *e != ' ') e++;
    int L = (int)(e - s);
    if (!fresh && col + 1 + L > width) { fprintf(f, "\n%*s", indent, ""); col = indent; fresh = 1; }
    if (!fresh) { fputc(' ', f); col++; }
    fprintf(f, "%.*s", L, s);
    col += L;
    fresh = 0;
    s = e;
  }
  fputc('\n', f);
}

static void opt_line(FILE* f, const helpOpt* o) {
  char head[80], text[512];
  if (!strcmp(o->name, "o")) snprintf(head, sizeof head, "  -o %s", o->arg);
  else if (o->arg && o->arg[0] == '[') snprintf(head, sizeof head, "  --%s%s", o->name, o->arg);
  else snprintf(head, sizeof head, "  --%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
  int L = snprintf(text, sizeof text, "%s.", o->what);
  if (o->unit) L += snprintf(text + L, sizeof text - (size_t)L, " Unit: %s.", o->unit);
  if (o->def) snprintf(text + L, sizeof text - (size_t)L, " Default: %s.", o->def);
  fputs(head, f);
  int col = (int)strlen(head);
  if (col >= 28) { fprintf(f, "\n%28s", ""); col = 28; }
  else { fprintf(f, "%*s", 28 - col, ""); col = 28; }
  print_wrapped(f, text, 28, col, 100);
}

static int documented(const helpCmd* d, const char* key) {
  const helpOpt* lists[3] = {d->opts, d->model ? model_opts : NULL, d->log ? log_opts : NULL};
  for (int l = 0; l < 3; l++)
    for (const helpOpt* o = lists[l]; o && o->name; o++)
      if (!strcmp(o->name, key)) return 1;
  return 0;
}

/* an option of d's own list shadows the common one of the same name */
static int own(const helpCmd* d, const char* key) {
  for (const helpOpt* o = d->opts; o->name; o++)
    if (!strcmp(o->name, key)) return 1;
  return 0;
}

static void print_args(FILE* f, const char* args) {
  for (const char* s = args; *s;) {
    const char* tab = strchr(s, '\t');
    const char* nl = strchr(s, '\n');
    char what[512];
    snprintf(what, sizeof what, "%.*s", (int)(nl - tab - 1), tab + 1);
    fprintf(f, "  %-26.*s", (int)(tab - s), s);
    print_wrapped(f, what, 28, 28, 100);
    s = nl + 1;
  }
}

/* dynid CMD --help: usage, arguments, every option with its unit, default
 * and meaning, an example on a shipped file. allowed: the options the
 * command accepts besides the common ones (its cli_check list); one it
 * accepts without a description here is listed as not documented. */
int cli_help(FILE* f, const char* cmd, const char* allowed) {
  const helpCmd* d = find_doc(cmd);
  if (!d) return 2;
  fprintf(f, "usage: dynid %s\n\n", d->synopsis);
  fprintf(f, "%c%s.\n\narguments:\n", d->summary[0] - ('a' <= d->summary[0] && d->summary[0] <= 'z' ? 32 : 0),
          d->summary + 1);
  print_args(f, d->args);
  fprintf(f, "\noptions:\n");
  for (const helpOpt* o = d->opts; o->name; o++) opt_line(f, o);
  if (d->log) {
    fprintf(f, "\nlog options (each log read):\n");
    for (const helpOpt* o = log_opts; o->name; o++) opt_line(f, o);
  }
  if (d->model) {
    fprintf(f, "\nmodel options:\n");
    for (const helpOpt* o = model_opts; o->name; o++)
      if (!own(d, o->name)) opt_line(f, o);
  }
  for (const char* s = allowed; s && *s;) {
    const char* e = strchr(s, ',');
    char key[64];
    snprintf(key, sizeof key, "%.*s", e ? (int)(e - s) : (int)strlen(s), s);
    if (key[0] && strcmp(key, "help") && !documented(d, key)) fprintf(f, "  --%-24s (not documented)\n", key);
    s = e ? e + 1 : NULL;
  }
  fprintf(f, "\nexample:\n  %s\n", d->example);
  return 0;
}

/* dynid --help */
void cli_help_overview(FILE* f) {
  fprintf(f, "usage: dynid COMMAND [arguments] [options]\n\n"
             "dynid identifies the dynamic parameters of a serial robot arm from logged joint\n"
             "positions and torques, and checks the result on logs it has not seen.\n\ncommands:\n");
  for (int i = 0; i < NDOC; i++) {
    fprintf(f, "  %-11s", docs[i].name);
    print_wrapped(f, docs[i].summary, 13, 13, 100);
  }
  fprintf(f, "\n'dynid COMMAND --help' lists every option of a command with its unit, default and an example.\n"
             "dynid --version prints the version; man dynid the manual (after make install).\n"
             "exit status: 0 success, 1 bad input or numerical failure, 2 bad usage\n");
}

/* ------------------------------------------------------------- manual */

/* roff text with its special characters escaped */
static void roff(FILE* f, const char* s) {
  if (*s == '.' || *s == '\'') fputs("\\&", f);
  for (; *s; s++) {
    if (*s == '\\') fputs("\\e", f);
    else if (*s == '-') fputs("\\-", f);
    else fputc(*s, f);
  }
}

static void man_opt(FILE* f, const helpOpt* o) {
  fputs(".TP\n.B ", f);
  char head[128];
  if (!strcmp(o->name, "o")) snprintf(head, sizeof head, "-o %s", o->arg);
  else if (o->arg && o->arg[0] == '[') snprintf(head, sizeof head, "--%s%s", o->name, o->arg);
  else snprintf(head, sizeof head, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
  roff(f, head);
  fputc('\n', f);
  roff(f, o->what);
  fputc('.', f);
  if (o->unit) { fputs(" Unit: ", f); roff(f, o->unit); fputc('.', f); }
  if (o->def) { fputs(" Default: ", f); roff(f, o->def); fputc('.', f); }
  fputc('\n', f);
}

/* the manual page dynid(1), from the same table as --help */
void cli_man(FILE* f) {
  fprintf(f, ".\\\" dynid(1), written by `dynid --man`: edit reports/cli_help.c, not this file\n");
  fprintf(f, ".TH DYNID 1 \"\" \"dynid %s\" \"User Commands\"\n.SH NAME\ndynid \\- identify the dynamic parameters "
             "of a robot arm from logged data\n.SH SYNOPSIS\n.B dynid\n.I COMMAND\n[arguments] [options]\n", DYNID_VERSION);
  fprintf(f, ".SH DESCRIPTION\ndynid reduces a serial arm's standard parameters to base parameters, identifies "
             "them with their standard deviations from logged joint positions and torques, and validates the "
             "result on logs it has not seen.\nSI units and radians throughout.\n.SH COMMANDS\n");
  for (int i = 0; i < NDOC; i++) {
    const helpCmd* d = &docs[i];
    fprintf(f, ".SS ");
    roff(f, d->synopsis);
    fputc('\n', f);
    roff(f, d->summary);
    fprintf(f, ".\n");
    for (const char* s = d->args; *s;) {
      const char* tab = strchr(s, '\t');
      const char* nl = strchr(s, '\n');
      char a[64], w[512];
      snprintf(a, sizeof a, "%.*s", (int)(tab - s), s);
      snprintf(w, sizeof w, "%.*s", (int)(nl - tab - 1), tab + 1);
      fputs(".TP\n.I ", f); roff(f, a); fputc('\n', f); roff(f, w); fputc('\n', f);
      s = nl + 1;
    }
    for (const helpOpt* o = d->opts; o->name; o++) man_opt(f, o);
    if (d->log) fprintf(f, ".TP\n.B log options\nsee LOG OPTIONS.\n");
    if (d->model) fprintf(f, ".TP\n.B model options\nsee MODEL OPTIONS.\n");
    fputs(".PP\nExample:\n.nf\n", f);
    roff(f, d->example);
    fputs("\n.fi\n", f);
  }
  fputs(".SH LOG OPTIONS\nOptions of every command that reads a log (identify, validate, report).\n", f);
  for (const helpOpt* o = log_opts; o->name; o++) man_opt(f, o);
  fputs(".SH MODEL OPTIONS\nOptions of every command that reads a model.\n", f);
  for (const helpOpt* o = model_opts; o->name; o++) man_opt(f, o);
  fputs(".SH EXIT STATUS\n0 success; 1 bad input or a numerical failure, with one line\n"
        ".B dynid: FILE:ROW:COL: what is wrong\non standard error; 2 bad usage.\n"
        ".SH DIAGNOSTICS\nWarnings start with\n.BR \"dynid: warning: \" .\nThose that question the result (units, "
        "rates, a model that does not fit the log, the data's quality) are repeated after identify's summary, one short "
        "line each; \\-\\-strict makes them errors (exit 1, nothing written).\n"
        ".SH FILES\nEvery file dynid writes starts with '#' lines: the dynid version, the command line, the model's "
        "fingerprint and the logs read.\n.SH SEE ALSO\nREADME.md of the dynid sources; pkg\\-config \\-\\-cflags "
        "\\-\\-libs dynid for the C library.\n", f);
}
