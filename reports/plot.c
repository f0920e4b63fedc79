/* dynid reports: SVG plots through PLplot (see plot.h). PLplot writes the
 * SVG to a temporary file, which is copied into the page without its
 * prolog. Colours: map 0 entry 15 is the axis colour (black on white). */
#include "plot.h"
#include <math.h>
#include <plplot/plplot.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const int palette[DYP_MAXSERIES][3] = {
  {31, 119, 180}, {214, 39, 40}, {44, 160, 44}, {255, 127, 14},
  {148, 103, 189}, {140, 86, 75}, {227, 119, 194}, {127, 127, 127}};

static int begin(char* path, const dypFrame* fr) {
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
  plschr(0, 0.8);
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

static void legend(const char* const* names, int nseries, int boxes) {
  PLINT opt[DYP_MAXSERIES], tcol[DYP_MAXSERIES], lcol[DYP_MAXSERIES], lsty[DYP_MAXSERIES];
  PLINT bcol[DYP_MAXSERIES], bpat[DYP_MAXSERIES];
  PLFLT lw[DYP_MAXSERIES], bsc[DYP_MAXSERIES], bw[DYP_MAXSERIES];
  for (int k = 0; k < nseries; k++) {
    opt[k] = boxes ? PL_LEGEND_COLOR_BOX : PL_LEGEND_LINE;
    tcol[k] = 15; lcol[k] = 1 + k; lsty[k] = 1; lw[k] = 2;
    bcol[k] = 1 + k; bpat[k] = 0; bsc[k] = 0.8; bw[k] = 1;
  }
  PLFLT lw_out, lh_out;
  pllegend(&lw_out, &lh_out, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX,
           PL_POSITION_TOP | PL_POSITION_RIGHT | PL_POSITION_INSIDE, 0.01, 0.01, 0.1, 0, 15, 1, 0, 0,
           nseries, opt, 1.0, 0.8, 1.5, 1.0, tcol, (const char* const*)names, bcol, bpat, bsc, bw,
           lcol, lsty, lw, NULL, NULL, NULL, NULL);
}

int dyp_lines(FILE* f, const dypFrame* fr, const double* x, int npts,
              const double* const* y, const char* const* names, int nseries) {
  if (npts < 1 || nseries < 1 || nseries > DYP_MAXSERIES) return -1;
  char path[64];
  begin(path, fr);
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
    plcol0(1 + k);
    plwidth(1.2);
    plline(m, xs, ys);
  }
  free(xs); free(ys);
  plwidth(1);
  if (names) legend(names, nseries, 0);
  return finish(f, path);
}

int dyp_histogram(FILE* f, const dypFrame* fr, const double* v, int n, int nbins) {
  if (n < 2 || nbins < 2) return -1;
  double mean = 0, var = 0;
  for (int i = 0; i < n; i++) mean += v[i];
  mean /= n;
  for (int i = 0; i < n; i++) var += (v[i] - mean) * (v[i] - mean);
  double sd = sqrt(var / (n - 1));
  /* bins over mean +- 4 sd (outliers counted in the end bins) */
  double lo = mean - 4 * sd, hi = mean + 4 * sd;
  if (!(hi > lo)) { lo = mean - 1; hi = mean + 1; }
  double w = (hi - lo) / nbins;
  PLFLT* cnt = calloc((size_t)nbins, sizeof(PLFLT));
  PLFLT* xc = malloc(sizeof(PLFLT) * (size_t)nbins);
  PLFLT gx[200], gy[200];
  if (!cnt || !xc) { free(cnt); free(xc); return -1; }
  for (int i = 0; i < n; i++) {
    int b = (int)floor((v[i] - lo) / w);
    if (b < 0) b = 0;
    if (b >= nbins) b = nbins - 1;
    cnt[b] += 1.0 / (n * w);   /* density */
  }
  double top = 0;
  for (int b = 0; b < nbins; b++) { xc[b] = lo + (b + 0.5) * w; if (cnt[b] > top) top = cnt[b]; }
  for (int i = 0; i < 200; i++) {
    gx[i] = lo + (hi - lo) * i / 199.0;
    double z = (gx[i] - mean) / sd;
    gy[i] = exp(-0.5 * z * z) / (sd * sqrt(2 * M_PI));
    if (gy[i] > top) top = gy[i];
  }
  char path[64];
  begin(path, fr);
  plcol0(15);
  plenv(lo, hi, 0, 1.3 * top, 0, 0);
  pllab(fr->xlabel, fr->ylabel, fr->title);
  plcol0(1);
  for (int b = 0; b < nbins; b++) {
    PLFLT bx[4] = {lo + b * w, lo + b * w, lo + (b + 1) * w, lo + (b + 1) * w};
    PLFLT by[4] = {0, cnt[b], cnt[b], 0};
    plfill(4, bx, by);
  }
  plcol0(2);
  plwidth(2);
  plline(200, gx, gy);
  plwidth(1);
  char l1[64], l2[96];
  snprintf(l1, sizeof l1, "residuals (%d samples)", n);
  snprintf(l2, sizeof l2, "normal, mean %.3g, sd %.3g", mean, sd);
  const char* names[2] = {l1, l2};
  PLINT opt[2] = {PL_LEGEND_COLOR_BOX, PL_LEGEND_LINE}, tcol[2] = {15, 15}, bcol[2] = {1, 0};
  PLINT bpat[2] = {0, 0}, lcol[2] = {0, 2}, lsty[2] = {1, 1};
  PLFLT bsc[2] = {0.8, 0}, bw[2] = {1, 1}, lw[2] = {1, 2}, ow, oh;
  pllegend(&ow, &oh, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX,
           PL_POSITION_TOP | PL_POSITION_RIGHT | PL_POSITION_INSIDE, 0.01, 0.01, 0.1, 0, 15, 1, 0, 0,
           2, opt, 1.0, 0.8, 1.5, 1.0, tcol, names, bcol, bpat, bsc, bw, lcol, lsty, lw,
           NULL, NULL, NULL, NULL);
  free(cnt); free(xc);
  return finish(f, path);
}

int dyp_bars(FILE* f, const dypFrame* fr, const char* const* labels, const double* v, int n) {
  if (n < 1) return -1;
  double top = 0;
  for (int i = 0; i < n; i++) if (isfinite(v[i]) && v[i] > top) top = v[i];
  if (top <= 0) top = 1;
  char path[64];
  begin(path, fr);
  plcol0(15);
  plenv(0, n, 0, 1.15 * top, 0, -2);
  plbox("bc", 0, 0, "bcnstg", 0, 0);
  pllab(fr->xlabel, fr->ylabel, fr->title);
  for (int i = 0; i < n; i++) {
    PLFLT bx[4] = {i + 0.15, i + 0.15, i + 0.85, i + 0.85};
    PLFLT by[4] = {0, v[i], v[i], 0};
    plcol0(1);
    plfill(4, bx, by);
    plcol0(15);
    plmtex("b", 1.5, (i + 0.5) / n, 0.5, labels[i]);
    char val[32];
    snprintf(val, sizeof val, "%.3g", v[i]);
    plptex(i + 0.5, v[i] + 0.03 * top, 1, 0, 0.5, val);
  }
  return finish(f, path);
}
