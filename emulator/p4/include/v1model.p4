/* rocelab: the v1model architecture (BMv2 simple_switch), written from the P4-16 specification and the
 * documented BMv2/v1model interface. Extension: enq_qdepth_bytes / deq_qdepth_bytes (see docs/architecture.md).
 *
 * V1MODEL_VERSION: programs may #define it before including this file. As with p4c's v1model.p4, programs that
 * define nothing get 20180101: ports are bit<9>, counters, meters and registers take bit<32> indexes
 * (`register<T>(size)`) and there is no PortId_t (programs often declare their own). 20200408 or later adds
 * `typedef bit<9> PortId_t` (the port fields' type) and the generic-index forms (`register<T, I>`, `counter<I>`,
 * `meter<I>`), so `#if V1MODEL_VERSION >= 20200408` in a program picks the same branch as with p4c.
 */
#ifndef _ROCELAB_V1MODEL_P4_
#define _ROCELAB_V1MODEL_P4_
/* The guard p4c's v1model.p4 defines, for programs that test it. */
#define _V1_MODEL_P4_

#include <core.p4>

#ifndef V1MODEL_VERSION
#define V1MODEL_VERSION 20180101
#endif

#if V1MODEL_VERSION >= 20200408
#define _ROCELAB_V1MODEL_GENERIC_INDEX 1
#endif

const bit<32> __v1model_version = V1MODEL_VERSION;

/* Meter colors as written by execute_meter / direct_meter.read (RFC 2698 two-rate three-color marker). */
#define V1MODEL_METER_COLOR_GREEN  0
#define V1MODEL_METER_COLOR_YELLOW 1
#define V1MODEL_METER_COLOR_RED    2

match_kind {
    range,     /* lo <= key <= hi */
    optional,  /* exact, or a wildcard */
    selector   /* input of an action selector's hash */
}

#if V1MODEL_VERSION >= 20200408
typedef bit<9> PortId_t;
#define _ROCELAB_PORT_T PortId_t
#else
#define _ROCELAB_PORT_T bit<9>
#endif

@metadata @name("standard_metadata")
struct standard_metadata_t {
    _ROCELAB_PORT_T ingress_port;
    _ROCELAB_PORT_T egress_spec;      /* set by ingress: the output port (511 drops) */
    _ROCELAB_PORT_T egress_port;      /* the port egress processing runs for */
    bit<32>  instance_type;    /* NORMAL 0, INGRESS_CLONE 1, EGRESS_CLONE 2, COALESCED 3, RECIRC 4,
                                  REPLICATION 5, RESUBMIT 6 */
    bit<32>  packet_length;
    @alias("queueing_metadata.enq_timestamp") bit<32> enq_timestamp;   /* microseconds */
    @alias("queueing_metadata.enq_qdepth")    bit<19> enq_qdepth;      /* packets */
    @alias("queueing_metadata.deq_timedelta") bit<32> deq_timedelta;   /* microseconds */
    @alias("queueing_metadata.deq_qdepth")    bit<19> deq_qdepth;      /* packets */
    @alias("intrinsic_metadata.ingress_global_timestamp") bit<48> ingress_global_timestamp;
    @alias("intrinsic_metadata.egress_global_timestamp")  bit<48> egress_global_timestamp;
    @alias("intrinsic_metadata.mcast_grp")  bit<16> mcast_grp;
    @alias("intrinsic_metadata.egress_rid") bit<16> egress_rid;
    bit<1>   checksum_error;   /* set by verify_checksum */
    error    parser_error;
    @alias("intrinsic_metadata.priority") bit<3> priority;
    /* rocelab extension: queue depths in bytes */
    bit<32>  enq_qdepth_bytes;
    bit<32>  deq_qdepth_bytes;
}

enum CounterType {
    packets,
    bytes,
    packets_and_bytes
}

enum MeterType {
    packets,
    bytes
}

#ifdef _ROCELAB_V1MODEL_GENERIC_INDEX
extern counter<I> {
    counter(bit<32> size, CounterType type);
    void count(in I index);
}
#else
extern counter {
    counter(bit<32> size, CounterType type);
    void count(in bit<32> index);
}
#endif

/* A counter attached to one table: one cell per entry, counted when the entry is hit. */
extern direct_counter {
    direct_counter(CounterType type);
    void count();
}

#ifdef _ROCELAB_V1MODEL_GENERIC_INDEX
extern meter<I> {
    meter(bit<32> size, MeterType type);
    void execute_meter<T>(in I index, out T result);
}
#else
extern meter {
    meter(bit<32> size, MeterType type);
    void execute_meter<T>(in bit<32> index, out T result);
}
#endif

/* A meter attached to one table; read() gives the color of the entry that was hit. */
extern direct_meter<T> {
    direct_meter(MeterType type);
    void read(out T result);
}

#ifdef _ROCELAB_V1MODEL_GENERIC_INDEX
extern register<T, I> {
    register(bit<32> size);
    @noSideEffects
    void read(out T result, in I index);
    void write(in I index, in T value);
}
#else
extern register<T> {
    register(bit<32> size);
    @noSideEffects
    void read(out T result, in bit<32> index);
    void write(in bit<32> index, in T value);
}
#endif

/* Members shared by the tables that name it as `implementation`. */
extern action_profile {
    action_profile(bit<32> size);
}

/* A uniformly distributed value in [lo, hi]. */
extern void random<T>(out T result, in T lo, in T hi);

/* Send `data` to the control plane (receiver is ignored by BMv2). */
extern void digest<T>(in bit<32> receiver, in T data);

enum HashAlgorithm {
    crc32,
    crc32_custom,
    crc16,
    crc16_custom,
    random,
    identity,
    csum16,
    xor16
}

@deprecated("Please use mark_to_drop(standard_metadata) instead.")
extern void mark_to_drop();

/* egress_spec := 511 (drop port) and mcast_grp := 0. The annotations on this and the checksum externs are
 * p4c's (optimisation hints; rocelab ignores them). */
@pure
extern void mark_to_drop(inout standard_metadata_t standard_metadata);

/* result = base + (hash(data) % max); base when max is 0. */
@pure
extern void hash<O, T, D, M>(out O result, in HashAlgorithm algo, in T base, in D data, in M max);

/* Members grouped, one chosen per packet by a hash of the table's `selector` keys. */
extern action_selector {
    action_selector(HashAlgorithm algorithm, bit<32> size, bit<32> outputWidth);
}

enum CloneType {
    I2E,
    E2E
}

@deprecated("Please use verify_checksum/update_checksum instead.")
extern Checksum16 {
    Checksum16();
    bit<16> get<D>(in D data);
}

/* Sets standard_metadata.checksum_error when `condition` holds and the checksum of `data` differs. */
extern void verify_checksum<T, O>(in bool condition, in T data, in O checksum, HashAlgorithm algo);

/* checksum := checksum of `data` when `condition` holds. */
@pure
extern void update_checksum<T, O>(in bool condition, in T data, inout O checksum, HashAlgorithm algo);

/* As above, with the payload after the deparsed headers appended to `data`. */
extern void verify_checksum_with_payload<T, O>(in bool condition, in T data, in O checksum, HashAlgorithm algo);

@noSideEffects
extern void update_checksum_with_payload<T, O>(in bool condition, in T data, inout O checksum,
                                               HashAlgorithm algo);

/* Drop the packet after `length` bytes when it is sent out. */
extern void truncate(in bit<32> length);

/* Process the packet through ingress again (with `data` preserved). */
@deprecated("Please use 'resubmit_preserving_field_list' instead")
extern void resubmit<T>(in T data);
extern void resubmit_preserving_field_list(bit<8> index);

/* Send the deparsed packet back to the parser after egress. */
@deprecated("Please use 'recirculate_preserving_field_list' instead")
extern void recirculate<T>(in T data);
extern void recirculate_preserving_field_list(bit<8> index);

/* Clone the packet to the port of mirroring session `session`. */
extern void clone(in CloneType type, in bit<32> session);

@deprecated("Please use 'clone_preserving_field_list' instead")
extern void clone3<T>(in CloneType type, in bit<32> session, in T data);
extern void clone_preserving_field_list(in CloneType type, in bit<32> session, bit<8> index);

/* Log when `check` is false (BMv2 with --enable-assert stops). */
extern void assert(in bool check);
extern void assume(in bool check);

/* Write a message to the switch log; `{}` in msg is replaced by the fields of `data`. */
extern void log_msg(string msg);
extern void log_msg<T>(string msg, in T data);

/* The six programmable blocks of the v1model pipeline. */
parser Parser<H, M>(packet_in b,
                    out H parsedHdr,
                    inout M meta,
                    inout standard_metadata_t standard_metadata);

control VerifyChecksum<H, M>(inout H hdr,
                             inout M meta);

@pipeline
control Ingress<H, M>(inout H hdr,
                      inout M meta,
                      inout standard_metadata_t standard_metadata);

@pipeline
control Egress<H, M>(inout H hdr,
                     inout M meta,
                     inout standard_metadata_t standard_metadata);

control ComputeChecksum<H, M>(inout H hdr,
                              inout M meta);

@deparser
control Deparser<H>(packet_out b, in H hdr);

package V1Switch<H, M>(Parser<H, M> p,
                       VerifyChecksum<H, M> vr,
                       Ingress<H, M> ig,
                       Egress<H, M> eg,
                       ComputeChecksum<H, M> ck,
                       Deparser<H> dep);

#endif /* _ROCELAB_V1MODEL_P4_ */
