get events -n voice
