#!/bin/bash
# Harbor's convention: the reward goes to /logs/verifier/reward.txt.
mkdir -p /logs/verifier
if python3 /tests/check_sum.py /app/sum.txt "$EXPECTED_SUM"; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
