graph():
    %x : [num_users=1] = placeholder[target=x]  # float32[2, 6]
    %s : [num_users=2] = call_function[target=split](args = (%x,), kwargs = {axis: 1, num_outputs: 2})
    %a : [num_users=1] = call_function[target=getitem](args = (%s, 0), kwargs = {})
    %b : [num_users=2] = call_function[target=getitem](args = (%s, 1), kwargs = {})
    %nz : [num_users=1] = call_function[target=non_zero](args = (%a,), kwargs = {})
    %c : [num_users=1] = call_function[target=cast](args = (%nz,), kwargs = {to: 1})
    %r : [num_users=1] = call_function[target=reduce_sum](args = (%c,), kwargs = {keepdims: 0})
    %m : [num_users=1] = call_function[target=mul](args = (%b, %r), kwargs = {})
    return (m, b)
