/* quant_lib.h — internals of the quantization library (src/quant/):
 * observers (value statistics and the range each method picks from them),
 * calibration, Q/DQ insertion and the per-layer SQNR figures. Internal
 * symbols are prefixed quant_. */
#ifndef NNFX_QUANT_LIB_H
#define NNFX_QUANT_LIB_H

#include "ir/strmap.h"
#include "nnfx.h"

#define QUANT_BINS 2048 /* histogram bins of each observed value      */
#define QUANT_KEEP 16   /* calibration samples kept for SQNR figures  */

/* What calibration saw of one float value (FX's observer). */
typedef struct quant_obs {
    const char *name; /* node name in the calibrated graph (borrowed)  */
    double min, max;  /* over every element of every sample            */
    int64_t count;    /* elements seen                                 */
    int64_t *hist;    /* QUANT_BINS bins over [min, max], or NULL      */
    int64_t *ahist;   /* QUANT_BINS bins of |x| over [0, max |x|]      */
} quant_obs;

/* Adds the elements of a float32 tensor to the min/max pass. */
void quant_obs_minmax(quant_obs *o, const nnfx_tensor *t);
/* Adds them to the histograms (min/max must be final); false on OOM. */
bool quant_obs_hist(quant_obs *o, const nnfx_tensor *t);
/* The range [*lo, *hi] (always containing 0) that method picks for o when
 * quantizing to `levels` steps (255 for 8 bits). percentile in (0, 100]. */
void quant_obs_range(const quant_obs *o, nnfx_quant_method method, double percentile, int levels, double *lo,
                     double *hi);
/* Scale and zero point of range [lo, hi] for activations of type dt
 * (uint8 or int8): scale > 0 always (1 for an empty range). */
void quant_affine(double lo, double hi, nnfx_dtype dt, float *scale, int32_t *zp);

struct nnfx_quant_calib {
    nnfx_graph *g; /* the BN-folded copy that was run            */
    int bn_folded;
    bool have_hist; /* histograms collected (any method works)    */
    int nobs;
    quant_obs *obs;
    ir_strmap by_name; /* node name -> quant_obs *                    */
    int ninputs;
    int nkeep;          /* chunks kept for SQNR, each ninputs tensors */
    nnfx_tensor **keep; /* nkeep * ninputs tensors (owned)           */
    long samples;
};

/* The observation of node `name`, or NULL. */
const quant_obs *quant_calib_obs(const nnfx_quant_calib *c, const char *name);

/* The Q/DQ rewrite of g (a copy of the calibrated graph) in place; fills
 * report's layer list (without SQNR). */
nnfx_status quant_insert_qdq(nnfx_graph *g, const nnfx_quant_calib *c, const nnfx_quant_options *o,
                             nnfx_quant_report *report, nnfx_error *err);

/* Local SQNR of every quantized layer of report: runs the calibrated float
 * graph on the kept samples and compares each layer's float output with its
 * output from the quantized-dequantized input, weight and bias of qg. */
nnfx_status quant_layer_sqnr(const nnfx_quant_calib *c, const nnfx_graph *qg, nnfx_quant_report *report,
                             nnfx_error *err);

#endif
