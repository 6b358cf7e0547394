"""Control planes over the v1model API: program switches in the terms of what they run (fabric.p4: routes, next
hops, ECMP groups, traffic classes, ECN thresholds). Used by the scenario builder, benchmarks and tests; the later
P4Runtime server serves the same tables to outside controllers."""
