// FloatMlp: the float reference of an Int8Mlp, on Eigen, for tests of the int8 engine. Each layer's
// int8 weights and int32 bias are taken at their real scale (times the requantisation factor
// mult / 2^shift, so every layer's output is in units of its int8 quantum, the last one's in the
// logit's quantum); activations are kept in float (no rounding), with the ReLU and the int8
// engine's saturation at 127 quanta. A convolution layer (int8_mlp.h) applies its weights to each
// position's window of its input, as the int8 engine does. The int8 engine differs from it only by
// the rounding of each hidden activation to a whole quantum, which ErrorBound() propagates through
// the layers.
#pragma once

#include <Eigen/Dense>
#include <span>
#include <vector>

#include "models/int8_mlp.h"

namespace earshot::models {

class FloatMlp {
 public:
  explicit FloatMlp(const Int8Mlp& mlp);

  // The output logit in the model's Q-format (not clamped) of one int8 input vector.
  double Logit(std::span<const int8_t> input) const;
  // The largest |int8 logit - float logit| rounding can cause: each hidden activation is off by at
  // most half a quantum, and layer l + 1 turns errors e into |W| e + 1/2 (ReLU and the clamp are
  // 1-Lipschitz), at each position from that position's window of e; plus half a quantum for the
  // output's own rounding.
  double ErrorBound() const;
  // The error's expected size when the roundings are independent and uniform over +-1/2 quantum
  // (variance 1/12 each), carried by W as above (ReLU and the clamp passing them), hidden units
  // and overlapping windows sharing them: the root mean square a test can hold the engine to.
  double ErrorRms() const;

 private:
  struct Layer {
    Eigen::MatrixXd weight;  // [outputs][window], real scale in output quanta per input quantum
    Eigen::VectorXd bias;
    Eigen::Index inputs;       // the layer's whole input (N_in)
    Eigen::Index positions;    // windows; a dense layer has one, its whole input
    Eigen::Index window_step;  // inputs between the starts of two windows
  };
  // weight * (each position's window of x) + add, position-major.
  static Eigen::VectorXd PerPosition(const Layer& layer, const Eigen::MatrixXd& weight,
                                     const Eigen::VectorXd& x, const Eigen::VectorXd& add);
  std::vector<Layer> layers_;
};

}  // namespace earshot::models
