// The driver: one actor starts every transfer as soon as the dependency rule allows, waits for the next batch
// of completions (all transfers ending at one instant), applies their data, and repeats.
//
// Round folding: when round k ran alone (all its transfers started together with nothing else in flight, and
// every taking-part rank ended its last transfer at the instant the round ended), the next rounds with the
// same (source, destination, size) sequence would start together in the same state and take exactly as long:
// the simulator is deterministic. They are not simulated: the driver sleeps for their total duration, applies
// their data in order and adds their link bytes. This needs every participant in the round, so that no other
// transfer could have started meanwhile.
//
// Periodic folding (sim/round_history.hpp): when the next round repeats a kept round K rounds back, the
// rounds that follow repeat the K kept ones in turn and are folded the same way, each as long as the one it
// repeats.
//
// Transfers are started from maestro, a batch at a time, and their ends come from a TransferTracker.
#include "sim/engine/executor.hpp"

#include <algorithm>
#include <deque>
#include <exception>
#include <limits>

#include "sim/engine/transfer_payload.hpp"
#include "sim/engine/transfer_tracker.hpp"
#include "sim/round_history.hpp"
#include "topologies/support/check.hpp"

namespace tpusim::sim {
namespace {

namespace s4u = simgrid::s4u;

// Rounds are loaded ahead only while some participant has nothing to do, and never beyond this many transfers
// unless the network would otherwise be idle.
constexpr std::size_t kWindowTransfers = 1u << 21;

class Driver {
 public:
  Driver(Platform& platform, const ExecutionInput& input, int num_ranks, std::vector<double>& link_bytes)
      : platform_(platform),
        input_(input),
        total_rounds_(input.schedule->round_count()),
        link_bytes_(link_bytes),
        per_rank_(num_ranks),
        participant_(num_ranks, 0),
        last_end_(num_ranks, -1.0),
        buffers_(num_ranks, nullptr),
        history_(num_ranks),
        tracker_(input.transfers) {
    for (const Rank rank : input.participants) {
      if (!participant_[rank]) ++participants_;
      participant_[rank] = 1;
    }
    idle_participants_ = participants_;
    if (input.data != nullptr) {
      for (auto& [rank, buffer] : *input.data) {
        buffers_[rank] = buffer.data();
        if (input.reads_input) inputs_.emplace(rank, buffer);
      }
    }
  }

  void drain() { tracker_.drain(); }

  ExecutionStats run() {
    stats_.start_s = s4u::Engine::get_clock();
    load_rounds();
    start_candidates();
    while (true) {
      if (tracker_.in_flight() == 0) {
        if (next_round_ >= total_rounds_ && window_.empty()) break;
        TPUSIM_CHECK(next_round_ <
                     total_rounds_);  // loaded work that can never start would be a scheduling bug
        load_next_round();
        start_candidates();
        continue;
      }
      complete_batch();
      if (!fold_if_repeating()) fold_periodic();
      load_rounds();
      start_candidates();
      report_rounds();
    }
    stats_.end_s = s4u::Engine::get_clock();
    return stats_;
  }

 private:
  struct Loaded {
    std::size_t round;
    std::vector<Transfer> transfers;
    std::vector<std::uint8_t> started;
    std::size_t unfinished;
    double first_start = -1;
    bool same_start = true;
    bool clean_start = false;
    std::size_t started_count = 0;
    double last_end = -1;
    bool same_end = true;
  };
  struct RankRound {
    std::size_t round;
    int incomplete;
    std::vector<std::uint32_t> transfers;
  };
  // What finishing a transfer in flight needs, by its tracker slot.
  struct Flight {
    std::size_t round = 0;
    std::uint32_t index = 0;
    std::vector<float> payload;
    double start_s = 0;
  };

  void report_rounds() {
    if (input_.on_rounds == nullptr || next_round_ == reported_rounds_) return;
    reported_rounds_ = next_round_;
    (*input_.on_rounds)(next_round_, total_rounds_);
  }

  Loaded& loaded(std::size_t round) { return window_[round - window_.front().round]; }

  void generate(std::size_t round, std::vector<Transfer>& out) {
    out.clear();
    if (pending_round_ == round) {
      out.swap(pending_);
      pending_round_ = std::numeric_limits<std::size_t>::max();
      return;
    }
    input_.schedule->append_round(round, out);
  }

  void load_next_round() {
    Loaded next{next_round_, {}, {}, 0};
    generate(next_round_, next.transfers);
    ++next_round_;
    if (next.transfers.empty()) return;
    next.started.assign(next.transfers.size(), 0);
    next.unfinished = next.transfers.size();
    window_transfers_ += next.transfers.size();
    for (std::uint32_t i = 0; i < next.transfers.size(); ++i) {
      const auto& t = next.transfers[i];
      for (const Rank rank : {t.src, t.dst}) {
        auto& queue = per_rank_[rank];
        if (queue.empty() && participant_[rank]) --idle_participants_;
        if (queue.empty() || queue.back().round != next.round) queue.push_back({next.round, 0, {}});
        ++queue.back().incomplete;
        queue.back().transfers.push_back(i);
      }
      candidates_.emplace_back(next.round, i);
    }
    window_.push_back(std::move(next));
  }

  void load_rounds() {
    while (next_round_ < total_rounds_ && idle_participants_ > 0 && window_transfers_ < kWindowTransfers) {
      load_next_round();
    }
  }

  bool startable(const Transfer& t, std::size_t round) const {
    return per_rank_[t.src].front().round == round && per_rank_[t.dst].front().round == round;
  }

  void start_candidates() {
    tracker_.in_maestro([this] { start_candidates_in_maestro(); });
  }

  void start_candidates_in_maestro() {
    auto& candidates = starting_;  // kept between calls, with its capacity
    candidates.clear();
    candidates.swap(candidates_);
    // Loading a round appends its transfers in order, so the common case needs no sort.
    if (!std::is_sorted(candidates.begin(), candidates.end())) std::sort(candidates.begin(), candidates.end());
    for (const auto& [round, index] : candidates) {
      if (window_.empty() || round < window_.front().round) continue;
      Loaded& r = loaded(round);
      if (r.started[index] != 0 || !startable(r.transfers[index], round)) continue;
      start(r, index);
    }
  }

  void start(Loaded& r, std::uint32_t index) {
    const Transfer& t = r.transfers[index];
    const double now = s4u::Engine::get_clock();
    if (r.first_start < 0) {
      r.first_start = now;
      r.clean_start = tracker_.in_flight() == 0 && window_.front().round == r.round;
    } else if (r.first_start != now) {
      r.same_start = false;
    }
    r.started[index] = 1;
    ++r.started_count;
    const std::uint64_t bytes = t.count * input_.element_bytes;
    for (const int link : platform_.route(t.src, t.dst)) add_link_bytes(link, static_cast<double>(bytes));
    const std::uint32_t slot =
        tracker_.start(platform_.host_of_rank(t.src), platform_.host_of_rank(t.dst), bytes);
    if (slot >= flights_.size()) flights_.resize(slot + 1);
    Flight& flight = flights_[slot];
    flight.round = r.round;
    flight.index = index;
    flight.start_s = now;
    if (buffers_[t.src] != nullptr) flight.payload = snapshot(t);
    ++stats_.messages;
    ++stats_.simulated_messages;
  }

  void add_link_bytes(int link, double bytes) {
    if (link >= static_cast<int>(link_bytes_.size())) link_bytes_.resize(link + 1, 0.0);
    link_bytes_[link] += bytes;
  }

  std::vector<float> snapshot(const Transfer& t) const {
    return read_payload(t, t.from_input ? inputs_.at(t.src).data() : buffers_[t.src]);
  }

  void apply(const Transfer& t, const std::vector<float>& payload) {
    if (buffers_[t.dst] != nullptr) apply_payload(t, payload, input_.op, buffers_[t.dst]);
  }

  void complete_batch() {
    tracker_.wait_for_ends(ended_);
    const double now = s4u::Engine::get_clock();
    std::sort(ended_.begin(), ended_.end(), [this](std::uint32_t a, std::uint32_t b) {
      return std::tie(flights_[a].round, flights_[a].index) < std::tie(flights_[b].round, flights_[b].index);
    });
    for (const std::uint32_t slot : ended_) {
      finish(flights_[slot], now);
      flights_[slot].payload.clear();
      tracker_.release(slot);
    }
    bool popped = false;
    while (!window_.empty() && window_.front().unfinished == 0) {
      if (popped) history_.clear();  // two rounds ending together did not run one after the other
      last_round_ = std::move(window_.front());
      window_.pop_front();
      popped = true;
    }
    if (popped && input_.fold_repeated_rounds) keep_in_history(now);
  }

  // Keeps the round that just ended if it ran alone (sim/round_history.hpp).
  void keep_in_history(double now) {
    const Loaded& r = last_round_;
    bool alone = r.same_start && r.same_end && r.last_end == now && tracker_.in_flight() == 0;
    for (const auto& later : window_) alone = alone && later.started_count == 0;
    if (!alone) {
      history_.clear();
      return;
    }
    history_.record(r.round, std::vector<Transfer>(r.transfers), r.first_start, now, r.clean_start);
  }

  void finish(const Flight& f, double now) {
    Loaded& r = loaded(f.round);
    const Transfer& t = r.transfers[f.index];
    r.started[f.index] = 2;
    --r.unfinished;
    if (r.last_end >= 0 && r.last_end != now) r.same_end = false;
    r.last_end = now;
    --window_transfers_;
    if (!f.payload.empty()) apply(t, f.payload);
    if (input_.trace != nullptr) {
      input_.trace->push_back({t.src, t.dst, t.count * input_.element_bytes, f.start_s, now, input_.label});
    }
    for (const Rank rank : {t.src, t.dst}) {
      last_end_[rank] = now;
      auto& queue = per_rank_[rank];
      TPUSIM_CHECK(!queue.empty() && queue.front().round == f.round);
      if (--queue.front().incomplete > 0) continue;
      queue.pop_front();
      if (queue.empty()) {
        if (participant_[rank]) ++idle_participants_;
        continue;
      }
      for (const auto index : queue.front().transfers) candidates_.emplace_back(queue.front().round, index);
    }
  }

  bool ran_alone(const Loaded& r, double now) {
    if (!input_.fold_repeated_rounds || !r.same_start || !r.clean_start || r.transfers.empty()) return false;
    if (!window_.empty() || tracker_.in_flight() != 0 || next_round_ >= total_rounds_) return false;
    std::vector<Rank> ranks;
    for (const auto& t : r.transfers) {
      if (last_end_[t.src] != now || last_end_[t.dst] != now) return false;
      ranks.push_back(t.src);
      ranks.push_back(t.dst);
    }
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    if (static_cast<int>(ranks.size()) != participants_) return false;
    for (const Rank rank : ranks) {
      if (!participant_[rank]) return false;
    }
    return true;
  }

  bool fold_if_repeating() {
    const double now = s4u::Engine::get_clock();
    if (last_round_.transfers.empty() || !ran_alone(last_round_, now)) return false;
    const double duration = now - last_round_.first_start;
    std::uint64_t folded = 0;
    std::vector<Transfer> next;
    while (next_round_ < total_rounds_) {
      // A round known to repeat the round before, which had this pattern, needs no transfers when no data
      // moves.
      const bool previous_matches = folded > 0 || last_round_.round + 1 == next_round_;
      if (input_.data == nullptr && previous_matches && pending_round_ != next_round_ &&
          input_.schedule->repeats_previous(next_round_)) {
        stats_.messages += last_round_.transfers.size();
        ++folded;
        ++next_round_;
        continue;
      }
      generate(next_round_, next);
      if (!same_pattern(next, last_round_.transfers)) {
        pending_.swap(next);
        pending_round_ = next_round_;
        break;
      }
      apply_folded_round(next);
      stats_.messages += next.size();
      ++folded;
      ++next_round_;
    }
    if (folded > 0) add_repeated_link_bytes(last_round_.transfers, folded);
    last_round_.transfers.clear();
    if (folded == 0) return false;
    history_.clear();
    stats_.folded_rounds += folded;
    sleep_through_fold(now, duration * static_cast<double>(folded), folded);
    return true;
  }

  // Adds the link bytes of `times` folded repeats of `round`, transfer by transfer as they would have run.
  void add_repeated_link_bytes(const std::vector<Transfer>& round, std::uint64_t times) {
    for (const auto& t : round) {
      const double bytes = static_cast<double>(t.count * input_.element_bytes) * static_cast<double>(times);
      for (const int link : platform_.route(t.src, t.dst)) add_link_bytes(link, bytes);
    }
  }

  // Applies a folded round's data, as its transfers would have: every payload read before any is applied.
  void apply_folded_round(const std::vector<Transfer>& round) {
    if (input_.data == nullptr) return;
    std::vector<std::vector<float>> payloads;
    for (const auto& t : round) payloads.push_back(buffers_[t.src] != nullptr ? snapshot(t) : std::vector<float>());
    for (std::size_t i = 0; i < round.size(); ++i) apply(round[i], payloads[i]);
  }

  // Sleeps for the folded rounds' span, after which every participant has ended its last transfer.
  void sleep_through_fold(double now, double span_s, std::uint64_t folded) {
    s4u::this_actor::sleep_for(span_s);
    const double end = s4u::Engine::get_clock();
    for (Rank rank = 0; rank < static_cast<Rank>(last_end_.size()); ++rank) {
      if (participant_[rank]) last_end_[rank] = end;
    }
    if (input_.trace != nullptr) input_.trace->push_back({-1, -1, folded, now, end, input_.label});
  }

  // Folds the rounds that repeat kept ones a period back (sim/round_history.hpp); the rounds loaded ahead,
  // none of which has started, are unloaded first and loaded again after the fold.
  void fold_periodic() {
    if (!input_.fold_repeated_rounds || history_.empty() || tracker_.in_flight() != 0) return;
    for (const auto& later : window_) if (later.started_count != 0) return;
    const std::size_t next = window_.empty() ? next_round_ : window_.front().round;
    if (next >= total_rounds_) return;
    std::vector<Transfer> round;
    if (window_.empty()) generate(next, round);
    const RecordedRound* model = history_.match(next, window_.empty() ? round : window_.front().transfers);
    if (model == nullptr) {
      if (window_.empty()) {
        pending_.swap(round);
        pending_round_ = next;
      }
      return;
    }
    if (!window_.empty()) unload_window(round);
    const std::size_t first = model->round, period = next - first;
    std::vector<std::uint64_t> times(period, 0);  // how many folded rounds repeat each kept one
    std::size_t x = next;
    for (; x < total_rounds_; ++x) {
      const RecordedRound& repeated = history_.at(first + (x - first) % period);
      if (x > next) {
        if (input_.data == nullptr && input_.schedule->repeats(x, period)) {
          stats_.messages += repeated.transfers.size();
          ++times[(x - first) % period];
          continue;
        }
        generate(x, round);
        if (!same_pattern(round, repeated.transfers)) {
          pending_.swap(round);
          pending_round_ = x;
          break;
        }
      }
      apply_folded_round(round);
      stats_.messages += repeated.transfers.size();
      ++times[(x - first) % period];
    }
    const double now = s4u::Engine::get_clock();
    double span = 0;
    for (std::size_t j = 0; j < period; ++j) {
      if (times[j] == 0) continue;
      const RecordedRound& repeated = history_.at(first + j);
      span += (repeated.end_s - repeated.start_s) * static_cast<double>(times[j]);
      add_repeated_link_bytes(repeated.transfers, times[j]);
    }
    const std::uint64_t folded = x - next;
    next_round_ = x;
    stats_.folded_rounds += folded;
    history_.clear();
    last_round_.transfers.clear();
    sleep_through_fold(now, span, folded);
  }

  // Forgets the rounds loaded ahead, none of which has started, as if they had never been loaded; the first
  // one's transfers go to `front`.
  void unload_window(std::vector<Transfer>& front) {
    for (const auto& r : window_) {
      for (const auto& t : r.transfers) {
        per_rank_[t.src].clear();
        per_rank_[t.dst].clear();
      }
    }
    front = std::move(window_.front().transfers);
    next_round_ = window_.front().round + 1;
    window_.clear();
    window_transfers_ = 0;
    candidates_.clear();
    idle_participants_ = participants_;
    pending_round_ = std::numeric_limits<std::size_t>::max();
  }

  Platform& platform_;
  const ExecutionInput& input_;
  const std::size_t total_rounds_;
  std::vector<double>& link_bytes_;
  std::vector<std::deque<RankRound>> per_rank_;
  std::vector<std::uint8_t> participant_;
  std::vector<double> last_end_;
  std::vector<float*> buffers_;
  std::map<Rank, std::vector<float>> inputs_;
  int participants_ = 0;
  int idle_participants_ = 0;

  std::deque<Loaded> window_;
  std::size_t window_transfers_ = 0;
  std::size_t next_round_ = 0;
  std::size_t reported_rounds_ = 0;
  std::vector<Transfer> pending_;
  std::size_t pending_round_ = std::numeric_limits<std::size_t>::max();
  Loaded last_round_{0, {}, {}, 0};
  RoundHistory history_;
  std::vector<std::pair<std::size_t, std::uint32_t>> candidates_;
  std::vector<std::pair<std::size_t, std::uint32_t>> starting_;
  TransferTracker tracker_;
  std::vector<Flight> flights_;  // by tracker slot
  std::vector<std::uint32_t> ended_;
  ExecutionStats stats_;
};

}  // namespace

ExecutionStats execute(Platform& platform, const ExecutionInput& input, int num_ranks,
                       std::vector<double>& link_bytes) {
  Driver driver(platform, input, num_ranks, link_bytes);
  std::exception_ptr failure;
  try {
    return driver.run();
  } catch (...) {
    failure = std::current_exception();
  }
  driver.drain();  // outside the handler: draining switches to other actors
  std::rethrow_exception(failure);
}

}  // namespace tpusim::sim
