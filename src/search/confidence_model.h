/*
 * confidence_model.h: the coefficients of the confidence model (confidence.c).
 *
 * Written by bench/quality/confidence.py --write (do not edit by hand): a logistic regression
 * over the standardized features of lp_search_conf_names, fitted on the dev kit (positives:
 * a question asked on its own repository whose answer is right; negatives: wrong answers,
 * the same questions asked on another repository, and the hand set asked on the kit). See
 * docs/decisions/0015-file-view-and-confidence.md for the data, the held-out figures and
 * the threshold.
 */
#ifndef LP_CONFIDENCE_MODEL_H
#define LP_CONFIDENCE_MODEL_H

/* topScore, margin2, margin5, topCover, top5Cover, nameCover, docCover, channels, exact, logOwners, logLexical, logWords */
static const double conf_mean[LP_CONF_NFEAT] = {1.59661, 0.136332, 0.299362, 0.321149, 0.539745, 0.0929154, 0.159343, 1.08008, 0.0696615, 5.24815, 2.81143, 2.4067};
static const double conf_scale[LP_CONF_NFEAT] = {0.320288, 0.250163, 0.293803, 0.156539, 0.181304, 0.105886, 0.179469, 0.271414, 0.254576, 0.448896, 0.384904, 0.408676};
static const double conf_coef[LP_CONF_NFEAT] = {-0.591411, 0.104872, 0.14647, 0.246229, 0.69757, 0.659549, 0.173871, 0.966013, 0.479539, -0.274157, 0.619252, 0.362665};
static const double conf_bias = -2.41423;
static const double conf_threshold = 0.17;

#endif
