#!/bin/bash
awk '{ s += $1 } END { print s }' /app/readings.txt > /app/sum.txt
