/** A check type with its article, as a sentence says it: `an API`, `an ICMP`, `a URL`, `a TCP`. */
export function aCheckType(checkType: string): string {
  return `${/^[AEIO]/.test(checkType) ? 'an' : 'a'} ${checkType}`
}
