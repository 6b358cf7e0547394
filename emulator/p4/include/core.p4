/* rocelab: the P4-16 core library (written from the P4-16 language specification, v1.2.4). */
#ifndef _ROCELAB_CORE_P4_
#define _ROCELAB_CORE_P4_
/* The guard p4c's core.p4 defines: programs and fragments test it with #ifdef. */
#define _CORE_P4_

/* Errors every P4-16 target can signal (more may be declared; error declarations merge). */
error {
    NoError,               /* no error */
    PacketTooShort,        /* not enough bits in the packet for an extract */
    NoMatch,               /* a select expression had no matching case */
    StackOutOfBounds,      /* a header stack index went past its size */
    HeaderTooShort,        /* a varbit extract asked for more bits than the field holds */
    ParserTimeout,         /* the parser ran out of its time budget */
    ParserInvalidArgument  /* a parser operation got an invalid argument (e.g. a negative size) */
}

/* The packet being parsed. */
extern packet_in {
    /* Extract a fixed-size header, advancing the cursor. */
    void extract<T>(out T hdr);
    /* Extract a header that ends with a varbit field of the given size in bits. */
    void extract<T>(out T variableSizeHeader, in bit<32> variableFieldSizeInBits);
    /* Read bits ahead of the cursor without advancing it. */
    T lookahead<T>();
    /* Skip bits. */
    void advance(in bit<32> sizeInBits);
    /* Total packet length in bytes (not every target knows it). */
    bit<32> length();
}

/* The packet being assembled by a deparser. */
extern packet_out {
    /* Append a header (when valid) or each element of a struct / stack / union. */
    void emit<T>(in T hdr);
}

/* Stop the parser with `toSignal` when `check` is false. */
extern void verify(in bool check, in error toSignal);

/* The empty action, used as a default. */
@noWarn("unused")
action NoAction() {}

/* Match kinds every target supports. */
match_kind {
    exact,    /* the key must equal the entry's value */
    ternary,  /* the key must equal the value in the bits set in the mask */
    lpm       /* longest-prefix match */
}

/* Fail compilation with `message` when `check` is false (evaluated at compile time). */
extern bool static_assert(bool check, string message);
extern bool static_assert(bool check);

#endif /* _ROCELAB_CORE_P4_ */
