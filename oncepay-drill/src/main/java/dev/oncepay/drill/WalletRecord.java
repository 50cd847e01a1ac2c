package dev.oncepay.drill;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/** What the clients know about one wallet operation: every key it was asked under and every final answer. */
final class WalletRecord {
    /**
     * A final answer to one key: {@code 201} with the entry it names (null if unreadable), or {@code
     * 402}; {@code body} the exact bytes, which every replay must repeat.
     */
    record Answer(String key, int status, String entryId, boolean replayed, String body) {
    }

    final WalletWorkload.Plan plan;
    /** Every key the operation was asked under, in order; a shopper's fresh keys after the first. */
    final List<String> keys = new CopyOnWriteArrayList<>();
    /** The reference each key's body carries. */
    final Map<String, String> referenceOf = new ConcurrentHashMap<>();
    /** Keys a shopper gave up on after an error: no answer of theirs is final. */
    final List<String> abandoned = new CopyOnWriteArrayList<>();
    final List<Answer> answers = new CopyOnWriteArrayList<>();
    private final String[] currentKey;
    private final Answer[] last;
    private int freshKeys;

    WalletRecord(WalletWorkload.Plan plan) {
        this.plan = plan;
        this.currentKey = new String[plan.submitters()];
        this.last = new Answer[plan.submitters()];
        Arrays.fill(currentKey, plan.key());
        keys.add(plan.key());
        referenceOf.put(plan.key(), plan.reference());
    }

    synchronized String key(int submitter) {
        return currentKey[submitter];
    }

    /** A shopper gives up on its key and asks again under a fresh key (and reference). */
    synchronized void askAgain(int submitter) {
        abandoned.add(currentKey[submitter]);
        freshKeys++;
        currentKey[submitter] = plan.freshKey(freshKeys);
        keys.add(currentKey[submitter]);
        referenceOf.put(currentKey[submitter], plan.freshReference(freshKeys));
        last[submitter] = null;
    }

    synchronized void answered(int submitter, Answer answer) {
        last[submitter] = answer;
        answers.add(answer);
    }

    /** The submitters still without a final answer to their current key. */
    synchronized List<Integer> unanswered() {
        List<Integer> result = new ArrayList<>();
        for (int s = 0; s < last.length; s++) {
            if (last[s] == null) {
                result.add(s);
            }
        }
        return result;
    }
}
