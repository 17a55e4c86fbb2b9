"""Constants the keyword trainers share (train_kws.py, train_wakeword.py, wakeword_verify.py), one
owner each; RUN_WEIGHT is also the device's (models/pocketsphinx/keyphrase_verifier.h,
ConfidenceTerms), which tests/train_constants_test.py holds equal."""

LOGIT_Q = 4  # output logits in Q4 (+-64)
TEMPERATURE = 4.0  # score = sigmoid(logit / 4): distinct Q15 scores up to a logit of about 41
POS_WEIGHT = 20.0  # about 1 hop in 100 is a keyword end
MINE_PROB = 0.05  # a negative hop is mined when sigmoid(float logit) reaches this
RUN_WEIGHT = 0.4  # per hop of the spotter's run, where a model has no kws_verify_run
