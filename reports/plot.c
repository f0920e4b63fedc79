/* SPDX-License-Identifier: MIT */
/* dynid reports: SVG plots through PLplot (see plot.h). PLplot writes the
 * SVG to a temporary file, which is copied into the page without its
 * prolog. Colours: map 0 entry 15 is the axis colour (black on white). */
#include "reports/plot.h"
#include <math.h>
#include "core/util.h"
#include <plplot/plplot.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* PLplot's functions (plplot.h names plX for its c_plX), loaded at the
 * first plot (util.h dy_dlsyms) into pl.f in the table's order; the
 * macros below make each c_plX that table's entry, so that the code's plX
 * calls read as PLplot's own */
#define PL_FUNCS(X) X(plbox) X(plcol0) X(plend) X(plenv) X(plfill) X(plgchr) X(plgspa) X(plgvpd) X(plinit) \
  X(pllab) X(pllegend) X(plline) X(plmtex) X(plptex) X(plschr) X(plscol0) X(plscolbg) X(plsdev) X(plsetopt) \
  X(plsfnam) X(plwidth)
#define X(f) +1
enum { PL_N = 0 PL_FUNCS(X) };
#undef X
static union {
  struct {
#define X(f) __typeof__(&c_##f) p_##f;
    PL_FUNCS(X)
#undef X
  } f;
  dyFn v[PL_N];
} pl;
static int pl_rc = 1;   /* 1 not yet loaded, 0 loaded, -1 cannot be */

/* PLplot loaded (once; a warning the first time it cannot be): 0 or -1 */
static int pl_load(void) {
  if (pl_rc <= 0) return pl_rc;
  static const char* const libs[] = {"libplplot.so.17", "libplplot.so", NULL};
  static const char* const names[] = {
#define X(f) "c_" #f,
    PL_FUNCS(X)
#undef X
  };
  char err[256];
  pl_rc = dy_dlsyms(libs, "libplplot17", names, PL_N, pl.v, err, sizeof err);
  if (pl_rc) fprintf(stderr, "dynid: the report's plots are left out: %s\n", err);
  return pl_rc;
}
#define c_plbox pl.f.p_plbox
#define c_plcol0 pl.f.p_plcol0
#define c_plend pl.f.p_plend
#define c_plenv pl.f.p_plenv
#define c_plfill pl.f.p_plfill
#define c_plgchr pl.f.p_plgchr
#define c_plgspa pl.f.p_plgspa
#define c_plgvpd pl.f.p_plgvpd
#define c_plinit pl.f.p_plinit
#define c_pllab pl.f.p_pllab
#define c_pllegend pl.f.p_pllegend
#define c_plline pl.f.p_plline
#define c_plmtex pl.f.p_plmtex
#define c_plptex pl.f.p_plptex
#define c_plschr pl.f.p_plschr
#define c_plscol0 pl.f.p_plscol0
#define c_plscolbg pl.f.p_plscolbg
#define c_plsdev pl.f.p_plsdev
#define c_plsetopt pl.f.p_plsetopt
#define c_plsfnam pl.f.p_plsfnam
#define c_plwidth pl.f.p_plwidth

static const int palette[DYP_MAXSERIES][3] = {
  {31, 119, 180}, {214, 39, 40}, {44, 160, 44}, {255, 127, 14},
  {148, 103, 189}, {140, 86, 75}, {227, 119, 194}, {127, 127, 127}};

/* a plot begun into the temporary SVG file path; -1 without PLplot */
static int begin(char* path, const cliPlotFrame* fr) {
  if (pl_load()) return -1;
  snprintf(path, 64, "/tmp/dynid-plot-%d.svg", (int)getpid());
  char geom[32];
  snprintf(geom, sizeof geom, "%dx%d", fr->width ? fr->width : 720, fr->height ? fr->height : 300);
  plsdev("svg");
  plsfnam(path);
  plsetopt("geometry", geom);
  plscolbg(255, 255, 255);
  plscol0(15, 0, 0, 0);
  for (int k = 0; k < DYP_MAXSERIES; k++) plscol0(1 + k, palette[k][0], palette[k][1], palette[k][2]);
  plinit();
  plschr(0, 1.1);   /* readable at the page's 540 px */
  return 0;
}

/* end the plot and copy the SVG (minus prolog) into f */
static int finish(FILE* f, const char* path) {
  plend();
  FILE* s = fopen(path, "r");
  if (!s) return -1;
  char line[4096];
  int in_svg = 0;
  while (fgets(line, sizeof line, s)) {
    if (!in_svg && strstr(line, "<svg")) in_svg = 1;
    if (in_svg) fputs(line, f);
  }
  fclose(s);
  unlink(path);
  return in_svg ? 0 : -1;
}

static void range(const double* v, int n, double* lo, double* hi) {
  *lo = INFINITY; *hi = -INFINITY;
  for (int i = 0; i < n; i++)
    if (isfinite(v[i])) { if (v[i] < *lo) *lo = v[i]; if (v[i] > *hi) *hi = v[i]; }
  if (!(*lo <= *hi)) { *lo = 0; *hi = 1; }
  if (*hi - *lo < 1e-12 * (fabs(*hi) + 1)) { *lo -= 0.5; *hi += 0.5; }
}

/* palette entry of series k: from the frame's first colour on */
static int col(const cliPlotFrame* fr, int k) {
  return (fr->color0 > 0 ? fr->color0 : 1) + k;
}

/* too many series for the palette from the frame's first colour */
static int too_many(const cliPlotFrame* fr, int nseries) {
  return nseries < 1 || col(fr, nseries - 1) > DYP_MAXSERIES;
}

static void legend(const cliPlotFrame* fr, const char* const* names, int nseries, int boxes) {
  PLINT opt[DYP_MAXSERIES], tcol[DYP_MAXSERIES], lcol[DYP_MAXSERIES], lsty[DYP_MAXSERIES];
  PLINT bcol[DYP_MAXSERIES], bpat[DYP_MAXSERIES];
  PLFLT lw[DYP_MAXSERIES], bsc[DYP_MAXSERIES], bw[DYP_MAXSERIES];
  for (int k = 0; k < nseries; k++) {
    opt[k] = boxes ? PL_LEGEND_COLOR_BOX : PL_LEGEND_LINE;
    tcol[k] = 15; lcol[k] = col(fr, k); lsty[k] = 1; lw[k] = 2;
    bcol[k] = col(fr, k); bpat[k] = 0; bsc[k] = 0.8; bw[k] = 1;
  }
  PLFLT lw_out, lh_out;
  pllegend(&lw_out, &lh_out, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX,
           PL_POSITION_TOP | PL_POSITION_RIGHT | PL_POSITION_INSIDE, 0.01, 0.01, 0.1, 0, 15, 1, 0, 0,
           nseries, opt, 1.0, 0.8, 1.5, 1.0, tcol, (const char* const*)names, bcol, bpat, bsc, bw,
           lcol, lsty, lw, NULL, NULL, NULL, NULL);
}

int dyp_lines(FILE* f, const cliPlotFrame* fr, const double* x, int npts,
              const double* const* y, const char* const* names, int nseries) {
  if (npts < 1 || too_many(fr, nseries)) return -1;
  char path[64];
  if (begin(path, fr)) return -1;
  double xlo, xhi, ylo = INFINITY, yhi = -INFINITY;
  range(x, npts, &xlo, &xhi);
  for (int k = 0; k < nseries; k++) {
    double lo, hi;
    range(y[k], npts, &lo, &hi);
    if (lo < ylo) ylo = lo;
    if (hi > yhi) yhi = hi;
  }
  double pad = 0.05 * (yhi - ylo);
  plcol0(15);
  plenv(xlo, xhi, ylo - pad, yhi + pad + 0.25 * (yhi - ylo), 0, 0);
  pllab(fr->xlabel, fr->ylabel, fr->title);
  /* thin long series: min and max of each of 1000 columns, in time order */
  int cols = npts > 2000 ? 1000 : npts;
  PLFLT* xs = malloc(sizeof(PLFLT) * 2 * (size_t)cols);
  PLFLT* ys = malloc(sizeof(PLFLT) * 2 * (size_t)cols);
  if (!xs || !ys) { free(xs); free(ys); plend(); unlink(path); return -1; }
  for (int k = 0; k < nseries; k++) {
    int m = 0;
    if (cols == npts) {
      for (int i = 0; i < npts; i++) { xs[m] = x[i]; ys[m++] = y[k][i]; }
    } else {
      for (int c = 0; c < cols; c++) {
        int a = (int)((long long)c * npts / cols), b = (int)((long long)(c + 1) * npts / cols);
        int imin = a, imax = a;
        for (int i = a; i < b; i++) {
          if (y[k][i] < y[k][imin]) imin = i;
          if (y[k][i] > y[k][imax]) imax = i;
        }
        int i1 = imin < imax ? imin : imax, i2 = imin < imax ? imax : imin;
        xs[m] = x[i1]; ys[m++] = y[k][i1];
        xs[m] = x[i2]; ys[m++] = y[k][i2];
      }
    }
    plcol0(col(fr, k));
    plwidth(1.2);
    plline(m, xs, ys);
  }
  free(xs); free(ys);
  plwidth(1);
  if (names) legend(fr, names, nseries, 0);
  return finish(f, path);
}

static void mean_sd(const double* v, int n, double* mean, double* sd) {
  double mu = 0, var = 0;
  for (int i = 0; i < n; i++) mu += v[i];
  mu /= n;
  for (int i = 0; i < n; i++) var += (v[i] - mu) * (v[i] - mu);
  *mean = mu;
  *sd = sqrt(var / (n - 1));
}

int dyp_histogram(FILE* f, const cliPlotFrame* fr, const double* v, int n, int nbins) {
  const double* vv[1] = {v};
  return dyp_histograms(f, fr, vv, n, NULL, 1, nbins);
}

/* Densities of each series over the common bins [lo + b w, lo + (b+1) w)
 * (values outside counted in the end bins): count / (n w), so that a bar's
 * area is its share of the samples; cnt holds nseries x nbins. Returns
 * the tallest. */
static double hist_counts(const double* const* v, int n, int nseries, int nbins, double lo, double w,
                          PLFLT* cnt) {
  double top = 0;
  for (int k = 0; k < nseries; k++)
    for (int i = 0; i < n; i++) {
      int b = (int)floor((v[k][i] - lo) / w);
      if (b < 0) b = 0;
      if (b >= nbins) b = nbins - 1;
      cnt[k * nbins + b] += 1.0 / (n * w);   /* density */
      if (cnt[k * nbins + b] > top) top = cnt[k * nbins + b];
    }
  return top;
}

/* The bars: one series filled, several as outlines (a staircase from 0 at
 * lo to 0 at hi through each bin's top) in the series' colours. */
static void hist_bars(const cliPlotFrame* fr, const PLFLT* cnt, int nseries, int nbins, double lo, double hi,
                      double w, PLFLT* sx, PLFLT* sy) {
  for (int k = 0; k < nseries; k++) {
    const PLFLT* c = cnt + k * nbins;
    plcol0(col(fr, k));
    if (nseries == 1) {
      for (int b = 0; b < nbins; b++) {
        PLFLT bx[4] = {lo + b * w, lo + b * w, lo + (b + 1) * w, lo + (b + 1) * w};
        PLFLT by[4] = {0, c[b], c[b], 0};
        plfill(4, bx, by);
      }
      continue;
    }
    int m = 0;
    sx[m] = lo; sy[m++] = 0;
    for (int b = 0; b < nbins; b++) {
      sx[m] = lo + b * w; sy[m++] = c[b];
      sx[m] = lo + (b + 1) * w; sy[m++] = c[b];
    }
    sx[m] = hi; sy[m++] = 0;
    plwidth(2);
    plline(m, sx, sy);
  }
}

/* The legend: one series names its bars (with the sample count) and the
 * normal density (mean, sd); several give each name with its mean and
 * sd. */
static void hist_legend(const cliPlotFrame* fr, const char* const* names, int nseries, int n, const double* mean,
                        const double* sd) {
  char lab[2][DYP_MAXSERIES][128];
  const char* ln[DYP_MAXSERIES];
  PLINT opt[DYP_MAXSERIES], tcol[DYP_MAXSERIES], bcol[DYP_MAXSERIES], bpat[DYP_MAXSERIES];
  PLINT lcol[DYP_MAXSERIES], lsty[DYP_MAXSERIES];
  PLFLT bsc[DYP_MAXSERIES], bw[DYP_MAXSERIES], lw[DYP_MAXSERIES], ow, oh;
  int nl = 0;
  if (nseries == 1) {   /* the bars and the normal density over them */
    snprintf(lab[0][0], 128, "residuals (%d samples)", n);
    snprintf(lab[1][0], 128, "normal, mean %.3g, sd %.3g", mean[0], sd[0]);
    ln[0] = lab[0][0]; ln[1] = lab[1][0];
    opt[0] = PL_LEGEND_COLOR_BOX; opt[1] = PL_LEGEND_LINE;
    bcol[0] = 1; bcol[1] = 0; lcol[0] = 0; lcol[1] = 2; lw[0] = 1; lw[1] = 2;
    nl = 2;
  } else {
    for (int k = 0; k < nseries; k++) {
      snprintf(lab[0][k], 128, "%s: mean %.3g, sd %.3g", names && names[k] ? names[k] : "", mean[k], sd[k]);
      ln[k] = lab[0][k];
      opt[k] = PL_LEGEND_LINE; bcol[k] = 0; lcol[k] = col(fr, k); lw[k] = 2;
    }
    nl = nseries;
  }
  for (int k = 0; k < nl; k++) { tcol[k] = 15; bpat[k] = 0; bsc[k] = 0.8; bw[k] = 1; lsty[k] = 1; }
  pllegend(&ow, &oh, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX,
           PL_POSITION_TOP | PL_POSITION_RIGHT | PL_POSITION_INSIDE, 0.01, 0.01, 0.1, 0, 15, 1, 0, 0,
           nl, opt, 1.0, 0.8, 1.5, 1.0, tcol, ln, bcol, bpat, bsc, bw, lcol, lsty, lw,
           NULL, NULL, NULL, NULL);
}

/* Bins over mean +- 4 sd of every series (outliers in the end bins; +-1
 * around the first mean when that range is empty) -> densities -> with one
 * series the normal density N(mean, sd^2) over it, 200 points -> axes,
 * bars, normal, legend. */
int dyp_histograms(FILE* f, const cliPlotFrame* fr, const double* const* v, int n,
                   const char* const* names, int nseries, int nbins) {
  if (n < 2 || nbins < 2 || too_many(fr, nseries)) return -1;
  double mean[DYP_MAXSERIES], sd[DYP_MAXSERIES];
  double lo = INFINITY, hi = -INFINITY;
  for (int k = 0; k < nseries; k++) {
    mean_sd(v[k], n, &mean[k], &sd[k]);
    lo = fmin(lo, mean[k] - 4 * sd[k]);
    hi = fmax(hi, mean[k] + 4 * sd[k]);
  }
  if (!(hi > lo)) { lo = mean[0] - 1; hi = mean[0] + 1; }
  double w = (hi - lo) / nbins;
  PLFLT* cnt = calloc((size_t)(nbins * nseries), sizeof(PLFLT));
  PLFLT* sx = malloc(sizeof(PLFLT) * (size_t)(2 * nbins + 2));
  PLFLT* sy = malloc(sizeof(PLFLT) * (size_t)(2 * nbins + 2));
  PLFLT gx[200], gy[200];
  if (!cnt || !sx || !sy) { free(cnt); free(sx); free(sy); return -1; }
  double top = hist_counts(v, n, nseries, nbins, lo, w, cnt);
  for (int i = 0; i < 200; i++) {
    gx[i] = lo + (hi - lo) * i / 199.0;
    double z = (gx[i] - mean[0]) / sd[0];
    gy[i] = exp(-0.5 * z * z) / (sd[0] * sqrt(2 * M_PI));
    if (nseries == 1 && gy[i] > top) top = gy[i];
  }
  char path[64];
  if (begin(path, fr)) return -1;
  plcol0(15);
  plenv(lo, hi, 0, 1.3 * top, 0, 0);
  pllab(fr->xlabel, fr->ylabel, fr->title);
  hist_bars(fr, cnt, nseries, nbins, lo, hi, w, sx, sy);
  if (nseries == 1) {
    plcol0(2);
    plwidth(2);
    plline(200, gx, gy);
  }
  plwidth(1);
  hist_legend(fr, names, nseries, n, mean, sd);
  free(cnt); free(sx); free(sy);
  return finish(f, path);
}

int dyp_bars(FILE* f, const cliPlotFrame* fr, const char* const* labels, const double* v, int n) {
  const double* vv[1] = {v};
  return dyp_groupbars(f, fr, labels, vv, NULL, 1, n);
}

/* Whether a value can stand over each bar, turned upright: the bar (bw
 * world units of n) at least 1.2 character heights wide, in millimetres of
 * the page (plgvpd: the viewport's share of the page, plgspa: the page,
 * plgchr: the character height in force). */
static int values_fit(double bw, int n) {
  PLFLT vx1, vx2, vy1, vy2, sx1, sx2, sy1, sy2, def, ht;
  plgvpd(&vx1, &vx2, &vy1, &vy2);
  plgspa(&sx1, &sx2, &sy1, &sy2);
  plgchr(&def, &ht);
  return bw / n * (vx2 - vx1) * (sx2 - sx1) >= 1.2 * ht;
}

/* Every how many labels one is written under the bars so that they never
 * touch: a label's width taken as 0.7 character heights per character
 * plus one of space, against the slot of one label (as values_fit). */
static int label_step(const char* const* labels, int n) {
  PLFLT vx1, vx2, vy1, vy2, sx1, sx2, sy1, sy2, def, ht;
  plgvpd(&vx1, &vx2, &vy1, &vy2);
  plgspa(&sx1, &sx2, &sy1, &sy2);
  plgchr(&def, &ht);
  size_t wide = 1;
  for (int i = 0; i < n; i++) wide = strlen(labels[i]) > wide ? strlen(labels[i]) : wide;
  double slot = (vx2 - vx1) * (sx2 - sx1) / n, need = (0.7 * (double)wide + 1) * ht;
  return slot >= need ? 1 : (int)ceil(need / slot);
}

/* Bars of width 0.7 / nseries per label, each series in its colour; the
 * values over the bars, upright so that neighbours never overlap, when
 * every bar is wide enough for one (values_fit; else none: the caller's
 * table holds them); the labels under the bars, every one or every k-th
 * when they would touch (label_step); room above for values and legend. */
int dyp_groupbars(FILE* f, const cliPlotFrame* fr, const char* const* labels,
                  const double* const* v, const char* const* names, int nseries, int n) {
  if (n < 1 || too_many(fr, nseries)) return -1;
  double top = 0;
  for (int k = 0; k < nseries; k++)
    for (int i = 0; i < n; i++) if (isfinite(v[k][i]) && v[k][i] > top) top = v[k][i];
  if (top <= 0) top = 1;
  char path[64];
  if (begin(path, fr)) return -1;
  plcol0(15);
  plenv(0, n, 0, (nseries > 1 && names ? 1.3 + 0.12 * nseries : 1.3) * top, 0, -2);
  plbox("bc", 0, 0, "bcnstg", 0, 0);
  pllab(fr->xlabel, fr->ylabel, fr->title);
  const double bw = 0.7 / nseries;
  const int every = label_step(labels, n);
  plschr(0, 0.8);
  const int show = values_fit(bw, n);
  for (int i = 0; i < n; i++) {
    plcol0(15);
    plschr(0, 1.1);
    if (i % every == 0) plmtex("b", 1.5, (i + 0.5) / n, 0.5, labels[i]);
    plschr(0, 0.8);
    for (int k = 0; k < nseries; k++) {
      double x0 = i + 0.15 + k * bw, y = isfinite(v[k][i]) ? v[k][i] : 0;
      PLFLT bx[4] = {x0, x0, x0 + bw, x0 + bw};
      PLFLT by[4] = {0, y, y, 0};
      plcol0(col(fr, k));
      plfill(4, bx, by);
      if (!show) continue;
      plcol0(15);
      char val[32];
      snprintf(val, sizeof val, "%.3g", v[k][i]);
      plptex(x0 + bw / 2, y + 0.02 * top, 0, 1, 0, val);   /* upright, from just above the bar */
    }
  }
  plschr(0, 1.1);
  if (nseries > 1 && names) legend(fr, names, nseries, 1);
  return finish(f, path);
}
