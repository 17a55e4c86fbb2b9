#include "models/float_mlp.h"

#include <cmath>

namespace earshot::models {

FloatMlp::FloatMlp(const Int8Mlp& mlp) {
  for (const Int8Dense& d : mlp.layers()) {
    Layer l{Eigen::MatrixXd(d.outputs, d.inputs), Eigen::VectorXd(d.outputs), d.total_inputs(),
            d.positions, static_cast<Eigen::Index>(d.window_step())};
    for (int o = 0; o < d.outputs; ++o) {
      // (acc * mult + 2^(shift-1)) >> shift is acc * mult / 2^shift, rounded.
      const double scale = d.mult[o] / std::ldexp(1.0, d.shift[o]);
      for (int i = 0; i < d.inputs; ++i) {
        l.weight(o, i) = d.weight[static_cast<size_t>(o) * d.inputs + i] * scale;
      }
      l.bias(o) = d.bias[o] * scale;
    }
    layers_.push_back(std::move(l));
  }
}

Eigen::VectorXd FloatMlp::PerPosition(const Layer& layer, const Eigen::MatrixXd& weight,
                                      const Eigen::VectorXd& x, const Eigen::VectorXd& add) {
  const Eigen::Index c = weight.rows(), k = weight.cols();
  Eigen::VectorXd out(layer.positions * c);
  for (Eigen::Index p = 0; p < layer.positions; ++p) {
    out.segment(p * c, c) = weight * x.segment(p * layer.window_step, k) + add;
  }
  return out;
}

double FloatMlp::Logit(std::span<const int8_t> input) const {
  Eigen::VectorXd a(static_cast<Eigen::Index>(input.size()));
  for (size_t i = 0; i < input.size(); ++i) a(static_cast<Eigen::Index>(i)) = input[i];
  for (size_t l = 0; l < layers_.size(); ++l) {
    a = PerPosition(layers_[l], layers_[l].weight, a, layers_[l].bias);
    if (l + 1 < layers_.size()) a = a.cwiseMax(0.0).cwiseMin(127.0);  // ReLU, int8 saturation
  }
  return a(0);
}

double FloatMlp::ErrorBound() const {
  Eigen::VectorXd e = Eigen::VectorXd::Zero(layers_.front().inputs);  // inputs are exact
  for (const Layer& l : layers_) {
    e = PerPosition(l, l.weight.cwiseAbs(), e, Eigen::VectorXd::Constant(l.weight.rows(), 0.5));
  }
  return e(0);
}

double FloatMlp::ErrorRms() const {
  // The output's error is linear in the roundings (ReLU and the clamp passing them): the sum over
  // layers of the output's gradient with respect to the layer's outputs times their roundings. Its
  // variance is then the gradients' squared norms over 12, the gradients back-propagated through
  // the weights; this counts what hidden units, or overlapping windows, share of an error.
  Eigen::VectorXd gradient = Eigen::VectorXd::Ones(1);  // of the logit, with respect to itself
  double variance = 1.0 / 12.0;
  for (size_t l = layers_.size() - 1; l > 0; --l) {  // the first layer's inputs are exact
    const Layer& layer = layers_[l];
    const Eigen::Index c = layer.weight.rows(), k = layer.weight.cols();
    Eigen::VectorXd before = Eigen::VectorXd::Zero(layer.inputs);
    for (Eigen::Index p = 0; p < layer.positions; ++p) {
      before.segment(p * layer.window_step, k) +=
          layer.weight.transpose() * gradient.segment(p * c, c);
    }
    gradient = std::move(before);
    variance += gradient.squaredNorm() / 12.0;
  }
  return std::sqrt(variance);
}

}  // namespace earshot::models
