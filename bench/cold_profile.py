"""Puts each sample of `perf script` (call graphs of roadtraffic-serve under the cold mix, see
bench/cold_profile.sh) in one part of a cold page's work, by the frames of its stack: the first
part in this list any of whose names appears anywhere in the stack. Prints each part's share.

    perf script -i perf.data | python3 bench/cold_profile.py
"""
import collections
import sys

PARTS = [
    ("SQLite pages read through the kernel (pread)", ["__libc_pread", "readDbPage"]),
    ("SQLite page faults on the memory map", ["asm_exc_page_fault"]),
    ("a run looked up per run (query_row)", ["RunRecords::look_up"]),
    ("a record written (SplitLayout::write: keys, own values, run fragments)", ["SplitLayout::write"]),
    ("SQLite stepping the page's query (VDBE, B-tree, column API)",
     ["sqlite3_step", "value_ref", "sqlite3_column", "Statement::query"]),
    ("the envelope (open, close, page URLs)", ["PageWriter", "envelope::"]),
    ("the page found (pager, its SQL, prepare)", ["Pager", "prepare", "plan::", "paging::"]),
    ("the rows loop, other (rusqlite's rows, the body's buffer)", ["write_rows"]),
    ("the body copied into actix's write buffer", ["encode_chunk", "TransferEncoding::encode"]),
    ("socket writes (kernel TCP)", ["tcp_sendmsg", "__send", "sendmsg", "writev"]),
    ("socket reads, loopback receive", ["tcp_recvmsg", "recv", "__x64_sys_read", "tcp_v4_rcv",
                                        "handle_softirqs"]),
    ("logging", ["env_logger"]),
    ("thread hand-offs (spawn_blocking, futex, yield, epoll, scheduler)",
     ["futex", "sched_yield", "epoll_wait", "spawn_blocking", "__schedule", "finish_task_switch"]),
    ("the response head (actix's codec)", ["h1::codec::Codec as tokio_util::codec::encoder"]),
    ("the request read, routed, its listing checked",
     ["routes::dispatch", "ListingAsked", "Rows::listed", "Query::read", "h1::decoder", "Codec"]),
    ("allocator", ["mi_", "malloc"]),
    ("memory copies elsewhere", ["memmove", "memcpy"]),
]


def part(stack):
    text = " ".join(stack)
    for name, keys in PARTS:
        if any(k in text for k in keys):
            return name
    return "other"


def main():
    shares, stack = collections.Counter(), []
    for line in sys.stdin:
        if not line.strip():
            if stack:
                shares[part(stack)] += 1
            stack = []
        elif line[0] in " \t":
            stack.append(line.strip())
    if stack:
        shares[part(stack)] += 1
    total = sum(shares.values())
    print("| part of the work | share of the samples |")
    print("|---|---|")
    for name, count in shares.most_common():
        print(f"| {name} | {100 * count / total:.1f}% |")
    print(f"| (samples) | {total} |")


main()
